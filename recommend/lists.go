package recommend

import (
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm/internal/kernel"
	"github.com/scaledsm/scaledsm/internal/par"
)

// Lists is the part of a model that ranks items for a user's list
// (Model.Recommend). The score of item i for user u is P_u · Q_i, where
// P Qᵀ is a low-rank ridge regression of the interaction matrix on itself
// (see fitLists): which items the user rated, weighted by the ratings, or
// the user's implicit feedback. A list never holds an item of the user's
// training interactions (Seen) unless asked to.
type Lists struct {
	P, Q   *mat.Dense // users × Rank and items × Rank
	Pop    float64    // the popularity exponent β: item i's column was scaled by its weight^-β
	Lambda float64    // the ridge penalty, relative to the mean squared norm of the scaled columns
	Seen   Seen       // the training interactions, by user
	// Selection is the validation that chose the hyperparameters.
	Selection *ListSelection
}

// Rank returns the rank of the interaction part, P's columns.
func (l *Lists) Rank() int {
	if l == nil || l.P == nil {
		return 0
	}
	_, k := l.P.Dims()
	return k
}

// ListSelection is what the validation of the lists measured: the
// fraction of the interactions held out, the users scored, the metric and
// each setting tried.
type ListSelection struct {
	Fraction   float64         `json:"fraction"`
	HeldOut    int             `json:"held_out"` // interactions held out
	Relevant   float64         `json:"relevant,omitempty"`
	Users      int             `json:"users"`  // scored: users with a relevant interaction held out
	Metric     string          `json:"metric"` // "NDCG@20"
	Candidates []ListCandidate `json:"candidates"`
	Chosen     int             `json:"chosen"`
	Seconds    float64         `json:"seconds"`
}

// ListCandidate is one setting of the lists tried on the validation.
type ListCandidate struct {
	Pop     float64 `json:"pop,omitempty"`
	Rank    int     `json:"rank,omitempty"`
	Lambda  float64 `json:"lambda,omitempty"`
	Setting string  `json:"setting,omitempty"` // a baseline's (see FitBaseline)
	Score   float64 `json:"score"`
}

// Seen are interactions by user: user u's items (indices, increasing) are
// Items[Start[u]:Start[u+1]].
type Seen struct {
	Start []int64
	Items []int32
}

// Len returns the number of interactions.
func (s Seen) Len() int { return len(s.Items) }

// row returns user u's items.
func (s Seen) row(u int) []int32 { return s.Items[s.Start[u]:s.Start[u+1]] }

// A scorer scores every item for blocks of users, for top-N lists.
type scorer interface {
	// items returns the number of items.
	items() int
	// scores sets out[r*items()+i] to the score of item i for user
	// rows[r]; len(rows) <= kernel.BatchRows.
	scores(out []float64, rows []int)
}

// factorScorer scores by the products of rows of two row-major matrices
// of width columns: user u's score of item i is fu_u · fi_i.
type factorScorer struct {
	fu, fi []float64
	width  int
	n2     int
	bufs   sync.Pool
}

func newFactorScorer(fu, fi []float64, width int) *factorScorer {
	n2 := 0
	if width > 0 {
		n2 = len(fi) / width
	}
	return &factorScorer{fu: fu, fi: fi, width: width, n2: n2}
}

func (f *factorScorer) items() int { return f.n2 }

func (f *factorScorer) scores(out []float64, rows []int) {
	w := f.width
	if w == 0 {
		clear(out[:len(rows)*f.n2])
		return
	}
	bp, _ := f.bufs.Get().(*[]float64)
	if bp == nil {
		b := make([]float64, kernel.BatchRows*w)
		bp = &b
	}
	buf := (*bp)[:len(rows)*w]
	for r, u := range rows {
		copy(buf[r*w:r*w+w], f.fu[u*w:u*w+w])
	}
	kernel.DotBatch(out, f.n2, buf, w, len(rows), w, f.fi, w, f.n2)
	f.bufs.Put(bp)
}

// better reports whether (s, i) ranks before (t, j): a higher score, or
// the same score and a smaller item index (the smaller id).
func better(s float64, i int32, t float64, j int32) bool {
	return s > t || (s == t && i < j)
}

// topOf sets items and scores (capacity n) to the n best entries of
// scores, best first, skipping -Inf and NaN (the excluded), and returns
// how many it found (fewer than n when fewer items are left). The list is
// a heap with its worst at the root while it fills.
func topOf(scores []float64, n int, items []int32, vals []float64) int {
	h := 0
	for i, s := range scores {
		if !(s > math.Inf(-1)) {
			continue
		}
		j := int32(i)
		if h < n {
			items[h], vals[h] = j, s
			h++
			for c := h - 1; c > 0; { // sift up: the worst at the root
				p := (c - 1) / 2
				if !better(vals[p], items[p], vals[c], items[c]) {
					break
				}
				items[p], items[c], vals[p], vals[c] = items[c], items[p], vals[c], vals[p]
				c = p
			}
			continue
		}
		if !better(s, j, vals[0], items[0]) {
			continue
		}
		items[0], vals[0] = j, s
		for p := 0; ; { // sift down
			c := 2*p + 1
			if c >= h {
				break
			}
			if c+1 < h && better(vals[c], items[c], vals[c+1], items[c+1]) {
				c++
			}
			if !better(vals[p], items[p], vals[c], items[c]) {
				break
			}
			items[p], items[c], vals[p], vals[c] = items[c], items[p], vals[c], vals[p]
			p = c
		}
	}
	// Sort best first.
	idx := make([]int, h)
	for k := range idx {
		idx[k] = k
	}
	slices.SortFunc(idx, func(a, b int) int {
		if better(vals[a], items[a], vals[b], items[b]) {
			return -1
		}
		return 1
	})
	ti, tv := make([]int32, h), make([]float64, h)
	for k, at := range idx {
		ti[k], tv[k] = items[at], vals[at]
	}
	copy(items, ti)
	copy(vals, tv)
	return h
}

// topN computes the n best items of the users rows (indices) by sc,
// excluding the items exclude gives (nil: none), on the cores, and calls
// emit for each user in the order of rows with its items and scores
// (emit must not keep them). A block of kernel.BatchRows users is scored
// at a time, so that memory is bounded whatever the number of users.
func topN(sc scorer, rows []int, n int, exclude func(u int) []int32, workers int, emit func(r int, items []int32, scores []float64) error) error {
	n2 := sc.items()
	const block = kernel.BatchRows
	nb := (len(rows) + block - 1) / block
	chunk := max(1, workers) * 8 // blocks done before their lists are emitted
	type result struct {
		items  []int32
		scores []float64
	}
	res := make([]result, chunk*block)
	bufs := sync.Pool{New: func() any { b := make([]float64, block*n2); return &b }}
	for c0 := 0; c0 < nb; c0 += chunk {
		c1 := min(nb, c0+chunk)
		par.Do(workers, c1-c0, func(j int) {
			b := c0 + j
			r0, r1 := b*block, min(len(rows), (b+1)*block)
			bp := bufs.Get().(*[]float64)
			out := (*bp)[:(r1-r0)*n2]
			sc.scores(out, rows[r0:r1])
			for r := r0; r < r1; r++ {
				s := out[(r-r0)*n2 : (r-r0+1)*n2]
				if exclude != nil {
					for _, i := range exclude(rows[r]) {
						s[i] = math.Inf(-1)
					}
				}
				items, vals := make([]int32, n), make([]float64, n)
				h := topOf(s, n, items, vals)
				res[r-c0*block] = result{items[:h], vals[:h]}
			}
			bufs.Put(bp)
		})
		for r := c0 * block; r < min(len(rows), c1*block); r++ {
			x := res[r-c0*block]
			if err := emit(r, x.items, x.scores); err != nil {
				return err
			}
		}
	}
	return nil
}
