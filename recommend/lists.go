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
// training interactions (Model.Seen) unless asked to.
type Lists struct {
	P, Q   *mat.Dense // users × Rank and items × Rank
	Pop    float64    // the popularity exponent β: item i's column was scaled by its weight^-β
	Lambda float64    // the ridge penalty, relative to the mean squared norm of the scaled columns
	// What a fold-in needs (see FoldIn): each item's column scale (its
	// weight^-Pop), the squared singular values of the scaled matrix, the
	// penalty's unit, and how a value weighs (Weights: "rating" from the
	// scale [Lo, Lo+Span], or "value" for implicit feedback).
	Scale   []float64
	Sig2    []float64
	Lambda0 float64
	Weights string
	Lo      float64
	Span    float64
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
	Sampled    int             `json:"sampled_users,omitempty"` // the users whose ratings the validation drew from, when not all
	HeldOut    int             `json:"held_out"`                // interactions held out
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

// Seen are interactions by user: user u's items (indices, each once, in
// no particular order) are those of the interactions Start[u] to
// Start[u+1], which Item gives, with their values (ratings, or weights of
// implicit feedback), which Value gives. Both are held as a fit's table
// held them: the items in 2 bytes each where there are at most 2^16 of
// them (see index), the values in a byte each where they take at most 255
// values (see stored).
type Seen struct {
	Start []int64
	items index
	vals  stored
}

// Item returns the item (its index) of interaction e.
func (s *Seen) Item(e int64) int32 { return s.items.at(int(e)) }

// Value returns the value of interaction e.
func (s *Seen) Value(e int64) float32 { return s.vals.at(int(e)) }

// Values returns the values of the interactions, in their order: the
// Seen's own, or a copy where they are coded.
func (s *Seen) Values() []float32 { return s.vals.floats() }

// Len returns the number of interactions.
func (s Seen) Len() int { return s.items.len() }

// row returns user u's items.
func (s Seen) row(u int) index { return s.items.sub(int(s.Start[u]), int(s.Start[u+1])) }

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
	once   sync.Once
	fiT    []float64 // fi transposed, width×n2, for scoresRange
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

// topHeap keeps the n best (score, item) pairs pushed: a heap with the
// worst at its root while it fills, sorted best first by sorted.
type topHeap struct {
	items []int32
	vals  []float64
	h     int
}

func newTopHeap(n int) *topHeap { return &topHeap{items: make([]int32, n), vals: make([]float64, n)} }

// push offers item j with score s.
func (t *topHeap) push(s float64, j int32) {
	items, vals, n := t.items, t.vals, len(t.items)
	if t.h < n {
		items[t.h], vals[t.h] = j, s
		t.h++
		for c := t.h - 1; c > 0; { // sift up: the worst at the root
			p := (c - 1) / 2
			if !better(vals[p], items[p], vals[c], items[c]) {
				break
			}
			items[p], items[c], vals[p], vals[c] = items[c], items[p], vals[c], vals[p]
			c = p
		}
		return
	}
	if !better(s, j, vals[0], items[0]) {
		return
	}
	items[0], vals[0] = j, s
	for p := 0; ; { // sift down
		c := 2*p + 1
		if c >= t.h {
			break
		}
		if c+1 < t.h && better(vals[c], items[c], vals[c+1], items[c+1]) {
			c++
		}
		if !better(vals[p], items[p], vals[c], items[c]) {
			break
		}
		items[p], items[c], vals[p], vals[c] = items[c], items[p], vals[c], vals[p]
		p = c
	}
}

// offer pushes the scores of items from..from+len(scores)-1, skipping
// -Inf and NaN (the excluded).
func (t *topHeap) offer(scores []float64, from int) {
	for k, s := range scores {
		if !(s > math.Inf(-1)) {
			continue
		}
		if t.h == len(t.items) && s < t.vals[0] {
			continue // the common case, decided without a call
		}
		t.push(s, int32(from+k))
	}
}

// sorted sorts the pairs best first and returns them.
func (t *topHeap) sorted() ([]int32, []float64) {
	idx := make([]int, t.h)
	for k := range idx {
		idx[k] = k
	}
	slices.SortFunc(idx, func(a, b int) int {
		if better(t.vals[a], t.items[a], t.vals[b], t.items[b]) {
			return -1
		}
		return 1
	})
	items, vals := make([]int32, t.h), make([]float64, t.h)
	for k, at := range idx {
		items[k], vals[k] = t.items[at], t.vals[at]
	}
	return items, vals
}

// topOf sets items and scores (capacity n) to the n best entries of
// scores, best first, skipping -Inf and NaN (the excluded), and returns
// how many it found (fewer than n when fewer items are left).
func topOf(scores []float64, n int, items []int32, vals []float64) int {
	t := &topHeap{items: items[:n], vals: vals[:n]}
	t.offer(scores, 0)
	ti, tv := t.sorted()
	copy(items, ti)
	copy(vals, tv)
	return len(ti)
}

// rangeScorer is a scorer that scores a range of items at a time.
type rangeScorer interface {
	scorer
	// scoresRange sets out[r*(i1-i0)+i-i0] to the score of item i in
	// [i0, i1) for user rows[r].
	scoresRange(out []float64, rows []int, i0, i1 int)
}

func (f *factorScorer) scoresRange(out []float64, rows []int, i0, i1 int) {
	w, m := f.width, i1-i0
	clear(out[:len(rows)*m])
	if w == 0 {
		return
	}
	f.once.Do(func() { // the items' factors by dimension, each a row of n2
		f.fiT = make([]float64, w*f.n2)
		for i := range f.n2 {
			for j, v := range f.fi[i*w : i*w+w] {
				f.fiT[j*f.n2+i] = v
			}
		}
	})
	bp, _ := f.bufs.Get().(*[]float64)
	if bp == nil {
		b := make([]float64, kernel.BatchRows*w)
		bp = &b
	}
	// wt holds the users' factors by dimension (w×len(rows)): out's rows
	// are the users', each Σ_j fu_uj · fiT_j over the range, by the
	// kernel's register tiles of users by items (no horizontal sums).
	nr := len(rows)
	wt := (*bp)[:w*nr]
	for r, u := range rows {
		for j, v := range f.fu[u*w : u*w+w] {
			wt[j*nr+r] = v
		}
	}
	kernel.AxpyBatch(out, m, wt, nr, f.fiT[i0:], f.n2, w, m, nr)
	f.bufs.Put(bp)
}

// listItems is the items a block's scores cover at a time in topN, so
// that the block's scores (kernel.BatchRows users by listItems items, 1
// MiB) stay in L2 while they are made and selected.
const listItems = 2048

// topN computes the n best items of the users rows (indices) by sc,
// excluding the items exclude gives (nil: none),
// on the cores, and calls emit for each user in the order of rows with
// its items and scores (emit must not keep them). A block of
// kernel.BatchRows users is scored at a time, by ranges of listItems
// items when sc can, so that memory is bounded whatever the number of
// users and the scores are selected while they are in cache.
func topN(sc scorer, rows []int, n int, exclude func(u int) index, workers int, emit func(r int, items []int32, scores []float64) error) error {
	n2 := sc.items()
	const block = kernel.BatchRows
	nb := (len(rows) + block - 1) / block
	chunk := max(1, workers) * 8 // blocks done before their lists are emitted
	type result struct {
		items  []int32
		scores []float64
	}
	res := make([]result, chunk*block)
	width := n2
	rs, ranged := sc.(rangeScorer)
	if ranged {
		width = min(n2, listItems)
	}
	bufs := sync.Pool{New: func() any { b := make([]float64, block*width); return &b }}
	for c0 := 0; c0 < nb; c0 += chunk {
		c1 := min(nb, c0+chunk)
		par.Do(workers, c1-c0, func(j int) {
			b := c0 + j
			r0, r1 := b*block, min(len(rows), (b+1)*block)
			bp := bufs.Get().(*[]float64)
			heaps := make([]*topHeap, r1-r0)
			var ex []index
			if exclude != nil {
				ex = make([]index, r1-r0)
				for r := range ex {
					ex[r] = exclude(rows[r0+r])
				}
			}
			for r := range heaps {
				heaps[r] = newTopHeap(n)
			}
			for i0 := 0; i0 < n2; i0 += width {
				i1 := min(n2, i0+width)
				m := i1 - i0
				out := (*bp)[:(r1-r0)*m]
				if ranged {
					rs.scoresRange(out, rows[r0:r1], i0, i1)
				} else {
					sc.scores(out, rows[r0:r1])
				}
				for r := range heaps {
					s := out[r*m : (r+1)*m]
					if ex != nil {
						for e := range ex[r].len() {
							if i := int(ex[r].at(e)); i >= i0 && i < i1 {
								s[int(i)-i0] = math.Inf(-1)
							}
						}
					}
					heaps[r].offer(s, i0)
				}
			}
			for r, h := range heaps {
				items, vals := h.sorted()
				res[r0+r-c0*block] = result{items, vals}
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
