package recommend

import (
	"math"
	"slices"
)

// ListMetrics score top-N lists against the items relevant to each user,
// over the users with at least one relevant item (the field's protocol:
// Cremonesi, Koren and Turrin 2010; LightGCN's all-ranking).
type ListMetrics struct {
	N         int     `json:"n"`         // the lists' length
	Users     int     `json:"users"`     // scored: users with a relevant item
	Precision float64 `json:"precision"` // mean of hits/N
	Recall    float64 `json:"recall"`    // mean of hits/relevant
	NDCG      float64 `json:"ndcg"`      // mean of DCG/ideal DCG, the ideal of min(relevant, N) hits
	MAP       float64 `json:"map"`       // mean average precision at N, over min(relevant, N)
	Coverage  float64 `json:"coverage"`  // items in some list (of every user listed) over the items
}

// listScore accumulates ListMetrics a user at a time, in the users'
// order, so that the sums do not depend on the cores.
type listScore struct {
	n, items         int
	m                ListMetrics
	p, r, ndcg, ap   float64
	listed           []bool
	discount, ideals []float64
}

func newListScore(n, items int) *listScore {
	sc := &listScore{n: n, items: items, listed: make([]bool, items), discount: make([]float64, n), ideals: make([]float64, n+1)}
	for k := range n {
		sc.discount[k] = 1 / math.Log2(float64(k)+2)
		sc.ideals[k+1] = sc.ideals[k] + sc.discount[k]
	}
	return sc
}

// add scores one user's list (item indices, best first) against the
// user's relevant items (increasing); a user with none counts only for
// the coverage.
func (sc *listScore) add(list, relevant []int32) {
	for _, i := range list {
		if int(i) < sc.items {
			sc.listed[i] = true
		}
	}
	if len(relevant) == 0 {
		return
	}
	var hits, dcg, ap float64
	for k, i := range list[:min(len(list), sc.n)] {
		if _, ok := slices.BinarySearch(relevant, i); ok {
			hits++
			dcg += sc.discount[k]
			ap += hits / float64(k+1)
		}
	}
	best := min(len(relevant), sc.n)
	sc.m.Users++
	sc.p += hits / float64(sc.n)
	sc.r += hits / float64(len(relevant))
	sc.ndcg += dcg / sc.ideals[best]
	sc.ap += ap / float64(best)
}

// metrics returns the means.
func (sc *listScore) metrics() ListMetrics {
	m := sc.m
	m.N = sc.n
	if m.Users > 0 {
		u := float64(m.Users)
		m.Precision, m.Recall, m.NDCG, m.MAP = sc.p/u, sc.r/u, sc.ndcg/u, sc.ap/u
	}
	listed := 0
	for _, b := range sc.listed {
		if b {
			listed++
		}
	}
	if sc.items > 0 {
		m.Coverage = float64(listed) / float64(sc.items)
	}
	return m
}

// ndcgOf returns the NDCG at n of one list against the relevant items
// (increasing), 0 for none.
func ndcgOf(list, relevant []int32, discount, ideals []float64) float64 {
	if len(relevant) == 0 {
		return 0
	}
	var dcg float64
	for k, i := range list {
		if _, ok := slices.BinarySearch(relevant, i); ok {
			dcg += discount[k]
		}
	}
	return dcg / ideals[min(len(relevant), len(discount))]
}
