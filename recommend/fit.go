package recommend

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"time"

	"github.com/scaledsm/scaledsm/internal/gamma"
	"github.com/scaledsm/scaledsm/internal/par"
	"github.com/scaledsm/scaledsm/ranks"
	"gonum.org/v1/gonum/mat"
)

// Method is how Fit fits the factors.
type Method int

const (
	// Bayes samples the posterior of the model with the scaled sweeps
	// and a Student-t likelihood, and averages the predictions of the
	// sweeps (the default).
	Bayes Method = iota
	// Ridge is the penalized least-squares fit (ALS-WR): the same sweeps
	// without noise, a Gaussian likelihood, and the ridge penalty
	// λ (n_u |L_u|² + n_i |R_i|²) on rows of n_u and n_i ratings.
	Ridge
)

// String returns "bayes" or "ridge".
func (m Method) String() string {
	switch m {
	case Bayes:
		return "bayes"
	case Ridge:
		return "ridge"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// ParseMethod returns the method named s.
func ParseMethod(s string) (Method, error) {
	for _, m := range []Method{Bayes, Ridge} {
		if s == m.String() {
			return m, nil
		}
	}
	return 0, &InputError{Source: "recommend", Input: "method", Value: s, Reason: "want bayes or ridge"}
}

// Defaults of Settings.
const (
	// DefaultNu is the degrees of freedom of the Student-t likelihood.
	// On MovieLens 100k (u1), 4 to 8 predict clean ratings as well as a
	// Gaussian likelihood (6: test RMSE 0.904 against 0.904) and resist
	// corrupted ones better (with 10% of the training ratings replaced
	// by random ones: 0.918 against 0.929); below 4 the clean
	// predictions suffer (3: 0.910). See docs/recommend.md.
	DefaultNu = 6
	// DefaultValidation is the fraction of the ratings held out to choose
	// the rank and the number of sweeps.
	DefaultValidation = 0.05
	// DefaultHeldOut bounds the ratings held out by default: past 2·10^7
	// ratings, 10^6 of them tell the ranks and the sweeps apart as well as
	// 5% would, and cost less to score every sweep.
	DefaultHeldOut = 1000000
	// DefaultMaxSweeps bounds the sweeps of a chain when they are chosen
	// by validation.
	DefaultMaxSweeps = 600
)

// Ranks are the ranks that Fit tries, in this order, when the rank is to
// be chosen: the Bayesian chain grows to the next while the last improved
// the validation RMSE by RankGain (more on many ratings: a rank pays for
// its sweeps), and undoes one that did not pay for them. Each is four
// times the last: a chain that needs rank 20 reaches it in one growth
// rather than through rank 10's stage (Jester's shape, under the stop
// rules before 8d91d79: 103 sweeps in all for 4.3079 where 5, 10, 20 and
// 40 took 142 for 4.2983, LIBMF's best 4.3778), and a truth of rank 5
// pays one trial.
var Ranks = []int{5, 20, 80}

// RankGain is the least improvement of the validation RMSE, in standard
// deviations of the ratings, for which Fit tries the next rank of Ranks
// (times the rank's cost beyond 10^7 ratings × (rank+1) a sweep).
const RankGain = 1e-3

// Lambdas are the ridge penalties that a Ridge fit tries when the penalty
// is to be chosen.
var Lambdas = []float64{0.035, 0.05, 0.07, 0.1, 0.14, 0.2, 0.28}

// Settings say how to fit a model. The zero value fits with the defaults:
// the Bayesian method, the rank and the number of sweeps chosen on 5% of
// the ratings held out, then a fit of all of them.
type Settings struct {
	Method Method
	// Rank is the rank of the factors; 0 chooses it by validation among
	// Ranks.
	Rank int
	// Sweeps is the number of sweeps; 0 chooses it by validation (early
	// stopping: the number after which the held-out RMSE stopped
	// improving).
	Sweeps int
	// Nu is the degrees of freedom of the Student-t likelihood of the
	// Bayesian method: 0 for DefaultNu, +Inf for a Gaussian likelihood.
	// Smaller is more robust to wrong ratings, and less accurate on
	// right ones below about 4.
	Nu float64
	// Lambda is the ridge penalty of the Ridge method; 0 chooses it by
	// validation among Lambdas.
	Lambda float64
	// Validation is the fraction of the ratings held out to choose what
	// is not given; 0 for DefaultValidation of them, DefaultHeldOut at
	// most. It is not used when nothing
	// is to be chosen.
	Validation float64
	// Seed seeds every draw: the same seed gives the same model, bit for
	// bit, whatever Workers is.
	Seed uint64
	// Workers is the number of goroutines; 0 for GOMAXPROCS.
	Workers int
	// Progress, when not nil, is called after every sweep.
	Progress func(Progress)
	// NoLists skips the lists (Model.Lists, which Recommend lists from),
	// which a fit makes by default beside the ratings model. A fit on the
	// ranks of an MPI job makes none.
	NoLists bool
	// Reducer, when not nil, shares the fit among the ranks of an MPI job
	// (package mpi; it must be a ranks.Exchanger): every rank calls Fit
	// with its part of the ratings and the same settings, the ranks'
	// parts one after the other being the ratings a single process would
	// fit (FitIndexed's parts index the ids of all of them: see
	// ShareIDs). The ranks exchange the ratings once, so that each holds
	// only those of its block of users and of its block of items; each
	// makes the rows of its blocks in every sweep, and the rows are
	// gathered after each half of a sweep. Every rank gets the model that
	// one process makes from the parts put together, bit for bit.
	Reducer ranks.Reducer
}

// Progress is the state of a fit, for a progress display.
type Progress struct {
	Stage string  // "validation" or "fit"
	Rank  int     // of the chain
	Sweep int     // sweeps made by the chain
	RMSE  float64 // validation: the best RMSE so far; NaN in the final fit
}

// validate checks the settings and fills in the defaults.
func (s Settings) validate() (Settings, error) {
	bad := func(input string, v any, reason string) (Settings, error) {
		return s, &InputError{Source: "recommend", Input: input, Value: v, Reason: reason}
	}
	switch {
	case s.Method != Bayes && s.Method != Ridge:
		return bad("method", s.Method, "want Bayes or Ridge")
	case s.Rank < 0:
		return bad("rank", s.Rank, "must be positive (0 chooses it)")
	case s.Sweeps < 0:
		return bad("sweeps", s.Sweeps, "must be positive (0 chooses the number)")
	case math.IsNaN(s.Nu) || s.Nu < 0 || (s.Nu > 0 && s.Nu < 1):
		return bad("nu", s.Nu, "must be at least 1 (0 for the default, +Inf for a Gaussian likelihood)")
	case math.IsNaN(s.Lambda) || math.IsInf(s.Lambda, 0) || s.Lambda < 0:
		return bad("lambda", s.Lambda, "must be positive (0 chooses it)")
	case !(s.Validation >= 0 && s.Validation < 0.5):
		return bad("validation", s.Validation, "must lie in [0, 0.5) (0 for the default)")
	case s.Workers < 0:
		return bad("workers", s.Workers, "must be positive (0 for every core)")
	}
	if s.Method == Ridge && s.Nu != 0 && !math.IsInf(s.Nu, 1) {
		return bad("nu", s.Nu, "applies to the bayes method: ridge is least squares")
	}
	if s.Method == Bayes && s.Lambda != 0 {
		return bad("lambda", s.Lambda, "applies to the ridge method: bayes learns its regularization")
	}
	if s.Nu == 0 {
		s.Nu = DefaultNu
	}
	if s.Workers == 0 {
		s.Workers = runtime.GOMAXPROCS(0)
	}
	return s, nil
}

// choosing reports whether some setting is chosen by validation.
func (s Settings) choosing() bool {
	return s.Rank == 0 || s.Sweeps == 0 || (s.Method == Ridge && s.Lambda == 0)
}

// Fit fits a model to the ratings. What the settings leave open (by
// default the rank and the number of sweeps) is chosen by validation: the
// ratings are split at random (Settings.Seed) into Settings.Validation
// held out and the rest. The Bayesian fit runs one chain on the rest,
// which grows its rank (Ranks) while the RMSE on the held-out ratings
// says so and stops when it stops improving, then goes on with all the
// ratings, so that no sweep is made twice; Ridge runs a chain per rank and
// penalty and refits the best.
//
// The Bayesian model's factors L and R hold the posterior mean of the
// low-rank part, which averages many sweeps and so has a higher rank than
// any one of them: up to 3 times Info.Rank columns (see posterior).
//
// The context stops a fit between sweeps with its error.
func Fit(ctx context.Context, r Ratings, s Settings) (*Model, error) {
	if err := r.checkHeld("ratings"); err != nil {
		return nil, err
	}
	x := r.Index()
	if s.Reducer != nil {
		ShareIDs(x, s.Reducer)
	}
	m, err := FitIndexed(ctx, x, s)
	if m != nil {
		m.Min, m.Max = valueRange(s.Reducer, r.Values)
	}
	return m, err
}

// FitIndexed is Fit of ratings in the compact form, which it does not
// copy: its memory is the sampler's table, 6 to 16 bytes a rating (see
// table; LayOut, then FitTable). The model shares the ratings' ids.
func FitIndexed(ctx context.Context, x *Indexed, s Settings) (*Model, error) {
	tb, err := LayOut(x, s)
	if err != nil {
		return nil, err
	}
	return FitTable(ctx, tb, s)
}

// A Table is ratings laid out for a fit (LayOut): 10 or 16 bytes a
// rating (the values coded in a byte where they take at most 255 values,
// float32 otherwise, and on the ranks of an MPI job), the values and the
// other side's index in the users' order and in the items' order; on the
// ranks of an MPI job (Settings.Reducer), this
// rank's users' ratings and its items'. FitTable fits it; Biases gives
// its baselines without a table of their own.
type Table struct {
	t            *table
	users, items IDs
	laid         time.Duration // LayOut's time
}

// LayOut lays out the ratings x for FitTable, on the cores and the ranks
// of the settings (on ranks, x is this rank's part: see
// Settings.Reducer). It does not read x once the users' half of the table
// is made, so that the caller may let x go and x be collected as the
// items' half is made. The table shares x's ids.
func LayOut(x *Indexed, s Settings) (*Table, error) {
	return layOutTable(x, s, false)
}

// Prepare starts making, in the background, what a fit with the settings
// s draws from first and that depends on nothing but s: the table of
// Gamma quantiles from which the Student-t likelihood draws a weight a
// rating (20 ms, a twentieth of MovieLens 100k's whole fit, made on one
// core before the first sweep can start). Called before the ratings are
// read, it is made while they are, on a core the reading leaves idle; the
// layout calls it too, and a fit waits only for what is left. Settings
// that do not validate, or whose fit draws no weights, start nothing.
func Prepare(s Settings) {
	s, err := s.validate()
	if err != nil || s.Method != Bayes || math.IsInf(s.Nu, 1) {
		return
	}
	gamma.Prepare(weightShape(s.Nu))
}

// LayOutTaking is LayOut of ratings that the caller gives up: it takes
// x's ratings, and x holds none once it returns (whatever it returns),
// so that their memory goes as the table is made. Where the values take
// at most 255 values, they are coded in a byte each and their float32 let
// go before the users' half of the table is made: on 10^8 ratings of at
// most 2^16 items the layout holds at most 13 bytes a rating (the ratings
// as read and their codes while the values are coded, then 12: the
// indices as read, the codes and the users' half; 15 were the float32
// held beside them). On ranks it is LayOut.
func LayOutTaking(x *Indexed, s Settings) (*Table, error) {
	tb, err := layOutTable(x, s, true)
	x.Rows, x.Cols, x.Values = nil, nil, nil
	return tb, err
}

// layOutTable is LayOut, and with take LayOutTaking.
func layOutTable(x *Indexed, s Settings, take bool) (*Table, error) {
	begin := time.Now()
	tb := &Table{users: x.Users, items: x.Items}
	if err := x.check("ratings"); err != nil {
		return nil, err
	}
	red, err := exchanger(s.Reducer)
	if err != nil {
		return nil, err
	}
	if x.Len() == 0 && red == nil {
		return nil, &InputError{Source: "recommend", Input: "ratings", Reason: "no ratings"}
	}
	if s, err = s.validate(); err != nil {
		return nil, err
	}
	Prepare(s)
	if tb.t, err = layOut(x, red, s.Workers, take); err != nil {
		return nil, err
	}
	tb.laid = time.Since(begin)
	return tb, nil
}

// FitTable is FitIndexed of a table that LayOut laid out with the same
// Reducer. The fit holds some of the table's ratings out while it
// chooses and gives them back before it returns, so that the table can
// be fitted again, and its Biases taken before or after a fit (not
// during one).
func FitTable(ctx context.Context, tb *Table, s Settings) (*Model, error) {
	begin := time.Now()
	t := tb.t
	red, err := exchanger(s.Reducer)
	if err != nil {
		return nil, err
	}
	if !sameRanks(red, t.red) {
		return nil, &InputError{Source: "recommend", Input: "Reducer", Reason: "is not the one the table was laid out with"}
	}
	if s, err = s.validate(); err != nil {
		return nil, err
	}
	if k := min(t.n1, t.n2); s.Rank > k { // a rank given: the choice checks its own
		return nil, &InputError{Source: "recommend", Input: "rank", Value: s.Rank, Reason: fmt.Sprintf("must be at most %d, the fewer of the %d users and %d items", k, t.n1, t.n2)}
	}
	m := &Model{Users: tb.users, Items: tb.items}
	m.Min, m.Max = t.y.valueRange(red)
	var ch *chosen
	if s.choosing() {
		if ch, err = choose(ctx, t, s); err != nil {
			return nil, err
		}
	}
	switch {
	case ch == nil:
		err = fitTable(ctx, t, s, defaultBurn(s), m)
	case ch.smp != nil:
		err = continueChain(ctx, m, ch)
		m.Info.Selection = ch.sel
	default:
		err = fitTable(ctx, t, ch.s, ch.burn, m)
		m.Info.Selection = ch.sel
	}
	if err != nil {
		return nil, err
	}
	if red == nil {
		m.Seen = seenOf(t)
	}
	if !s.NoLists && red == nil {
		if s.Progress != nil {
			s.Progress(Progress{Stage: "lists", Rank: m.Info.Rank, RMSE: math.NaN()})
		}
		if m.Lists, err = fitLists(ctx, t, false, s); err != nil {
			return nil, err
		}
	}
	m.Info.Ratings = t.m
	m.Info.Seed = s.Seed
	m.Info.Seconds = (tb.laid + time.Since(begin)).Seconds()
	return m, nil
}

// sameRanks reports whether a and b are the same Exchanger, both nil
// alone. Two of a type that == cannot compare (it would panic) are taken
// as the same when their types are.
func sameRanks(a, b ranks.Exchanger) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if ta := reflect.TypeOf(a); ta != reflect.TypeOf(b) || !ta.Comparable() {
		return ta == reflect.TypeOf(b)
	}
	return a == b
}

// layOut returns the table of the ratings x. Alone, the users' half is
// checked for a pair rated twice while the ratings given are at hand to
// name it; then the items' half is made, once nothing here holds those
// ratings (the caller may let them go). On ranks, this rank's share
// (shardTable).
//
// With take, layOut takes x's ratings (x holds none after): where their
// values can be coded (see stored), they are, in a byte each, and their
// float32 let go before the users' half is made from the codes.
func layOut(x *Indexed, red ranks.Exchanger, workers int, take bool) (*table, error) {
	if red != nil {
		return shardTable(x, red, workers)
	}
	in := stored{f: x.Values}
	if take && codeValues {
		if sc := newScale(x.Values, workers); sc != nil {
			in = stored{c: sc.encode(x.Values, workers), scale: sc}
			x.Values = nil
			collect()
		}
	}
	t := userOrder(len(x.Users), len(x.Items), x.Rows, x.Cols, in, workers)
	if t.rerated(workers) {
		return nil, duplicates(x, workers) // which pair, and where
	}
	if take {
		x.Rows, x.Cols, x.Values = nil, nil, nil
	}
	collect()
	t.itemOrder(workers)
	return t, nil
}

// collect runs a collection where much of the heap has just become
// garbage: between the two halves of a table, once the ratings given are
// no longer read (a caller that has let them go gets their memory back
// before the second half is made), and between a validation and the
// chain's continuation. Left to itself, the collector lets the heap grow
// past what was live at its last collection by a fraction (a tenth at
// 10^8 ratings, mem.TuneGC) before it collects: by the second half of
// the table, or by the continuation's garbage on top of a goal the
// validation's state set. At the Netflix shape (9.9 × 10^7 ratings) one
// process's peak went from 2,434 to 2,270 MiB with the two collections,
// the same predictions.
func collect() { runtime.GC() }

// A DuplicateError is a pair rated twice: the ratings First and Second
// (indices into the ratings given to Fit) have the same user and item.
type DuplicateError struct {
	User, Item    int64
	First, Second int
}

func (e *DuplicateError) Error() string {
	if e.First < 0 {
		return fmt.Sprintf("recommend: ratings: user %d rated item %d twice", e.User, e.Item)
	}
	return fmt.Sprintf("recommend: ratings: user %d rated item %d twice (ratings %d and %d)", e.User, e.Item, e.First, e.Second)
}

// rerated reports whether a pair is rated twice, from the users' half
// of the table: a user's row meets an item twice. Each block of users
// marks the items it meets with the user's number.
func (t *table) rerated(workers int) bool {
	const block = 1 << 14
	found := make([]bool, (t.n1+block-1)/block)
	par.Do(workers, len(found), func(b int) {
		seen := make([]int32, t.n2)
		for u := b * block; u < min(t.n1, (b+1)*block); u++ {
			for p := t.uStart[u]; p < t.uStart[u+1]; p++ {
				i := t.uItem.at(p)
				if seen[i] == int32(u)+1 {
					found[b] = true
					return
				}
				seen[i] = int32(u) + 1
			}
		}
	})
	return slices.Contains(found, true)
}

// duplicates returns a *DuplicateError for the first pair rated twice,
// found by sorting each user's items (no map of every pair), the users
// shared among the cores.
func duplicates(x *Indexed, workers int) error {
	n1, rows, cols := len(x.Users), x.Rows, x.Cols
	start := counts(n1, rows)
	at := make([]int32, len(rows)) // rating indices, user by user
	next := slices.Clone(start[:n1])
	for k, u := range rows {
		at[next[u]] = int32(k)
		next[u]++
	}
	// Each block of users' first duplicate, the one whose second rating
	// comes first.
	const block = 1024
	found := make([]*DuplicateError, (n1+block-1)/block)
	par.Do(workers, len(found), func(b int) {
		for u := b * block; u < min(n1, (b+1)*block); u++ {
			row := at[start[u]:start[u+1]]
			slices.SortFunc(row, func(a, b int32) int { return cmp.Or(cmp.Compare(cols[a], cols[b]), cmp.Compare(a, b)) })
			for j := 1; j < len(row); j++ {
				if cols[row[j]] != cols[row[j-1]] {
					continue
				}
				a, c := int(row[j-1]), int(row[j])
				if d := found[b]; d == nil || c < d.Second {
					found[b] = &DuplicateError{User: x.Users[rows[a]], Item: x.Items[cols[a]], First: a, Second: c}
				}
			}
		}
	})
	var dup *DuplicateError
	for _, d := range found {
		if d != nil && (dup == nil || d.Second < dup.Second) {
			dup = d
		}
	}
	if dup != nil {
		return dup
	}
	return nil
}

// defaultBurn is the first sweep that the posterior mean takes when the
// number of sweeps is given: the average from the first sweeps on predicts
// about as well as from later ones on MovieLens, so a twentieth.
func defaultBurn(s Settings) int {
	if s.Method == Ridge {
		return max(s.Sweeps-1, 0)
	}
	return s.Sweeps / 20
}

// fitTable fits the settings' model (every setting given) to the table,
// the posterior mean from sweep burn on, into m.
func fitTable(ctx context.Context, t *table, s Settings, burn int, m *Model) error {
	smp := newSampler(t, s.Rank, s.Nu, s.Seed, s.Workers)
	if s.Method == Ridge {
		smp.noise, smp.nu, smp.lambda = false, math.Inf(1), s.Lambda
	}
	smp.start()
	// Every other sweep, the sweeps being strongly correlated (the test
	// RMSE on MovieLens 100k does not change), the mean held at 3 times
	// the rank.
	spec := chainSpec{burn: burn, keep: true, thin: 2, maxRank: 3 * s.Rank}
	return finish(ctx, newChain(smp, spec), s, m, "fit")
}

// continueChain fits the chosen chain's model to all the ratings: the
// chain goes on with the ratings it held out, its sweeps added to its
// posterior mean, so that no sweep of the selection is made again.
func continueChain(ctx context.Context, m *Model, ch *chosen) error {
	s := ch.s
	ch.smp.release(ch.held)
	collect() // the validation's scores, snapshots and second mean are garbage
	spec := chainSpec{first: ch.made, keep: true, post: ch.post, thin: chainThin, maxRank: chainRankMul * s.Rank}
	if err := finish(ctx, newChain(ch.smp, spec), s, m, "fit"); err != nil {
		return err
	}
	m.Info.Continued = s.Sweeps
	m.Info.Sweeps = ch.sweeps + s.Sweeps
	return nil
}

// finish runs the chain for s.Sweeps sweeps and puts the posterior mean
// it made into m.
func finish(ctx context.Context, c *chain, s Settings, m *Model, stage string) error {
	t := c.s.t
	if s.Progress != nil {
		c.spec.progress = func(n int, _ float64) {
			s.Progress(Progress{Stage: stage, Rank: s.Rank, Sweep: n + 1, RMSE: math.NaN()})
		}
	}
	if _, err := c.stage(ctx, s.Sweeps); err != nil {
		return err
	}
	ub, ib, l, r, k := c.finish().mean()
	m.Mean, m.UserBias, m.ItemBias = t.mean, ub, ib
	if k > 0 {
		m.L, m.R = mat.NewDense(t.n1, k, l), mat.NewDense(t.n2, k, r)
	}
	m.Info.Method = s.Method.String()
	m.Info.Rank = s.Rank
	m.Info.Sweeps = s.Sweeps
	if s.Method == Bayes && !math.IsInf(s.Nu, 1) {
		m.Info.Nu = s.Nu
	}
	if s.Method == Ridge {
		m.Info.Lambda = s.Lambda
	}
	m.Info.NoiseSD = c.noiseSD()
	return nil
}
