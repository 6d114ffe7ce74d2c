package recommend

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"
)

// MethodImplicit is Info.Method of a model of implicit feedback alone
// (FitInteractions): it has lists and no ratings part, and Predict gives
// the lists' score.
const MethodImplicit = "implicit"

// Cold says what Recommend lists for a user the model has not seen, and
// for a blank user (List.Blank).
type Cold int

const (
	// ColdNone lists nothing for such a user.
	ColdNone Cold = iota
	// ColdPopular lists the items with the most training interactions (a
	// blank user's own left out unless ListOptions.IncludeSeen).
	ColdPopular
)

// ListOptions say what Recommend lists.
type ListOptions struct {
	N           int  // items in a list, from 1 to the model's items (0 is an error, not a default)
	IncludeSeen bool // list the user's training items too
	Cold        Cold
	Workers     int // goroutines; 0 for GOMAXPROCS
}

// A List is a user's recommendations, best first; ties go to the smaller
// item id. Known is false for a user the model has not seen, Blank true
// for one it has seen but cannot place: a user whose lists row is zero,
// and would score every item alike, as after FoldIn for a user whose items
// all came to the model with the user or with others it could not place.
// Both are listed as ListOptions.Cold says, a blank user's own items left
// out unless ListOptions.IncludeSeen.
type List struct {
	User   int64
	Known  bool
	Blank  bool
	Items  []int64
	Scores []float64
}

// Recommend calls each with the list of every user of users, in their
// order (nil: every user of the model, in increasing order): see
// Ranking.Recommend. A model without lists is an *InputError.
func (m *Model) Recommend(ctx context.Context, users []int64, o ListOptions, each func(List) error) error {
	r, err := m.Ranking()
	if err != nil {
		return err
	}
	return r.Recommend(ctx, users, o, each)
}

// Ranking returns the model's lists as a Ranking, an *InputError for a
// model without lists.
func (m *Model) Ranking() (*Ranking, error) {
	l := m.Lists
	if l == nil {
		return nil, &InputError{Source: "recommend", Input: "model", Reason: "has no lists (fitted without them, or saved by an earlier version): fit it again"}
	}
	if m.Seen == nil {
		return nil, &InputError{Source: "recommend", Input: "model", Reason: "has lists and no training interactions to leave out of them"}
	}
	k := l.Rank()
	sc := newFactorScorer(l.P.RawMatrix().Data, l.Q.RawMatrix().Data, k)
	var blank func(u int) bool
	if k > 0 {
		blank = func(u int) bool {
			return !slices.ContainsFunc(l.P.RawRowView(u), func(v float64) bool { return v != 0 })
		}
	}
	return &Ranking{Name: "scaledsm", Setting: fmt.Sprintf("rank %d, pop %g, lambda %g", k, l.Pop, l.Lambda), Users: m.Users, Items: m.Items, sc: sc, seen: *m.Seen, blank: blank}, nil
}

// A Ranking lists items for users: the lists of a Model (Model.Ranking)
// or a ranking baseline's (FitBaseline).
type Ranking struct {
	Name         string
	Setting      string // the hyperparameters, as "lambda 500"
	Users, Items IDs
	// Selection is the validation that chose the setting, nil when given.
	Selection *ListSelection
	sc        scorer
	seen      Seen
	blank     func(u int) bool // a user whose scores say nothing (List.Blank); nil: none
}

// Recommend calls each with the list of every user of users, in their
// order (nil: every user of the ranking, in increasing order). The scores
// are made a block of users at a time by matrix products on the cores, so
// that the memory is bounded whatever the number of users, and the lists
// do not depend on the number of cores. An N out of range is an
// *InputError; an error of each, or of the context, stops the lists and
// is returned.
func (rk *Ranking) Recommend(ctx context.Context, users []int64, o ListOptions, each func(List) error) error {
	n2 := len(rk.Items)
	if o.N < 1 || o.N > n2 {
		return &InputError{Source: "recommend", Input: "N", Value: o.N, Reason: fmt.Sprintf("must lie in [1, %d], the model's items", n2)}
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	var exclude func(u int) index
	if !o.IncludeSeen {
		exclude = rk.seen.row
	}
	// rows are the known users' indices, pos their positions in users.
	var rows, pos []int
	if users == nil {
		rows = make([]int, len(rk.Users))
		for u := range rows {
			rows[u] = u
		}
	} else {
		for k, id := range users {
			if u, ok := rk.Users.Index(id); ok {
				rows, pos = append(rows, u), append(pos, k)
			}
		}
	}
	var popular []int64
	var popScores []float64
	if o.Cold == ColdPopular {
		items, scores := rk.seen.popular(n2, o.N)
		popular, popScores = rk.itemIDs(items), scores
	}
	var byCount []int32 // every item, the most popular first, for blank users
	var counts []float64
	blankList := func(u int) List {
		lst := List{User: rk.Users[u], Known: true, Blank: true}
		if o.Cold != ColdPopular {
			return lst
		}
		if o.IncludeSeen {
			lst.Items, lst.Scores = popular, popScores
			return lst
		}
		if byCount == nil {
			byCount, counts = rk.seen.popular(n2, n2)
		}
		own := rk.seen.row(u)
		seen := make(map[int32]bool, own.len())
		for e := range own.len() {
			seen[own.at(e)] = true
		}
		var items []int32
		for k, i := range byCount {
			if len(items) == o.N {
				break
			}
			if !seen[i] {
				items = append(items, i)
				lst.Scores = append(lst.Scores, counts[k])
			}
		}
		lst.Items = rk.itemIDs(items)
		return lst
	}
	at := 0                        // the next of users to list
	cold := func(upto int) error { // the unknown users before position upto
		for ; at < upto; at++ {
			lst := List{User: users[at]}
			if o.Cold == ColdPopular {
				lst.Items, lst.Scores = popular, popScores
			}
			if err := each(lst); err != nil {
				return err
			}
		}
		return nil
	}
	err := topN(rk.sc, rows, o.N, exclude, o.Workers, func(r int, items []int32, scores []float64) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if users != nil {
			if err := cold(pos[r]); err != nil {
				return err
			}
			at++
		}
		if u := rows[r]; rk.blank != nil && rk.blank(u) {
			return each(blankList(u))
		}
		return each(List{User: rk.Users[rows[r]], Known: true, Items: rk.itemIDs(items), Scores: scores})
	})
	if err != nil || users == nil {
		return err
	}
	return cold(len(users))
}

// Evaluate scores the ranking's lists of n items against test: an item is
// relevant to a user when the user's test rating of it is at least
// relevant (-Inf: every test interaction), and the ranking knows both; the
// users with a relevant item are listed and scored (see ListMetrics), a
// blank user (List.Blank) on the popular items, as ColdPopular lists them.
func (rk *Ranking) Evaluate(ctx context.Context, test Ratings, n int, relevant float64) (ListMetrics, error) {
	if err := test.check("test"); err != nil {
		return ListMetrics{}, err
	}
	byUser := map[int][]int32{}
	ux, ix := rk.Users.indexer(test.Len()), rk.Items.indexer(test.Len())
	for k, id := range test.Users {
		if !(test.Values[k] >= relevant) {
			continue
		}
		u, okU := ux.index(id)
		i, okI := ix.index(test.Items[k])
		if okU && okI {
			byUser[u] = append(byUser[u], int32(i))
		}
	}
	var users []int64
	for u, r := range byUser {
		slices.Sort(r)
		byUser[u] = slices.Compact(r)
		users = append(users, rk.Users[u])
	}
	slices.Sort(users)
	sc := newListScore(n, len(rk.Items))
	idx := make([]int32, n)
	err := rk.Recommend(ctx, users, ListOptions{N: n, Cold: ColdPopular}, func(l List) error {
		u, _ := ux.index(l.User)
		idx = idx[:len(l.Items)]
		for k, id := range l.Items {
			i, _ := ix.index(id)
			idx[k] = int32(i)
		}
		sc.add(idx, byUser[u])
		return nil
	})
	return sc.metrics(), err
}

// Popular returns the ranking of the most popular items (the baseline a
// user would try first): every user's list is the items with the most
// training interactions, the user's own left out.
func (rk *Ranking) Popular() *Ranking {
	counts := make([]float64, len(rk.Items))
	for e := range rk.seen.items.len() {
		counts[rk.seen.items.at(e)]++
	}
	ones := make([]float64, len(rk.Users))
	for u := range ones {
		ones[u] = 1
	}
	return &Ranking{Name: BaselinePopular, Users: rk.Users, Items: rk.Items, sc: newFactorScorer(ones, counts, 1), seen: rk.seen}
}

// itemIDs returns the ids of item indices.
func (rk *Ranking) itemIDs(items []int32) []int64 {
	ids := make([]int64, len(items))
	for k, i := range items {
		ids[k] = rk.Items[i]
	}
	return ids
}

// popular returns the n items with the most interactions, most first
// (ties to the smaller index), and their counts.
func (s Seen) popular(n2, n int) ([]int32, []float64) {
	counts := make([]float64, n2)
	for e := range s.items.len() {
		counts[s.items.at(e)]++
	}
	items, vals := make([]int32, n), make([]float64, n)
	h := topOf(counts, n, items, vals)
	return items[:h], vals[:h]
}

// FitInteractions fits a model of implicit feedback: x's values are the
// weights of the interactions (1 for a plain click or view; a count or a
// time is best given as a weight that grows slowly with it, such as
// 1 + log(count)), every one positive and finite. The model has lists
// (Recommend) and no ratings part; its settings are chosen on a fifth of
// the interactions held out (see Lists). Settings.Seed and Workers apply;
// the ratings model's settings do not.
func FitInteractions(ctx context.Context, x *Indexed, s Settings) (*Model, error) {
	begin := time.Now()
	for k, v := range x.Values {
		if !(v > 0) || math.IsInf(float64(v), 0) {
			return nil, &InputError{Source: "recommend", Input: "interactions", Reason: fmt.Sprintf("interaction %d has weight %v: weights must be positive and finite", k, v)}
		}
	}
	if s.Reducer != nil {
		return nil, &InputError{Source: "recommend", Input: "Reducer", Reason: "interactions are fitted by one process"}
	}
	tb, err := LayOut(x, s)
	if err != nil {
		return nil, err
	}
	if s, err = s.validate(); err != nil {
		return nil, err
	}
	t := tb.t
	m := &Model{Users: tb.users, Items: tb.items, UserBias: make([]float64, t.n1), ItemBias: make([]float64, t.n2)}
	if m.Lists, err = fitLists(ctx, t, true, s); err != nil {
		return nil, err
	}
	m.Seen = seenOf(t)
	m.Info = Info{Method: MethodImplicit, Rank: m.Lists.Rank(), Ratings: t.m, Seed: s.Seed, Seconds: time.Since(begin).Seconds()}
	return m, nil
}
