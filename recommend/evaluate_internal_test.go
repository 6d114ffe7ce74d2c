package recommend

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestIDIndex: the indexer finds every id where Index does, and no id
// that is not among them (in a gap, below, above), by its table where the
// ids span a modest range and by a search where they do not.
func TestIDIndex(t *testing.T) {
	for _, c := range []struct {
		ids   IDs
		table bool // with many lookups
	}{
		{IDs{}, false},
		{IDs{7}, true},
		{IDs{-3, -1, 0, 2, 5, 6, 100}, true},
		{IDs{1, 1 << 40, 1<<40 + 3, math.MaxInt64}, false}, // too wide for a table
		{IDs{math.MinInt64, math.MaxInt64}, false},         // hi - lo overflows
		{IDs{-1 << 62, 0, 1 << 62}, false},
		{IDs{math.MaxInt64 - 2, math.MaxInt64}, true},
		{IDs{math.MinInt64, math.MinInt64 + 3}, true},
	} {
		for _, lookups := range []int{1, 1 << 20} {
			x := c.ids.indexer(lookups)
			// A table where the ids allow one and the lookups are many beside its span.
			if want := c.table && int64(lookups) >= (c.ids[len(c.ids)-1]-c.ids[0])/16; (x.table != nil) != want {
				t.Fatalf("%v, %d lookups: table %v, want %v", c.ids, lookups, x.table != nil, want)
			}
			for _, id := range []int64{math.MinInt64, math.MinInt64 + 1, math.MinInt64 + 3, math.MinInt64 + 4, -1 << 62, -4, -3, -2, -1, 0, 1, 2, 3, 5, 6, 7, 8, 99, 100, 101,
				1 << 40, 1<<40 + 1, 1<<40 + 3, 1 << 62, math.MaxInt64 - 3, math.MaxInt64 - 2, math.MaxInt64 - 1, math.MaxInt64} {
				want, wok := c.ids.Index(id)
				got, ok := x.index(id)
				if ok != wok || ok && got != want {
					t.Errorf("%v, %d lookups: id %d: %d, %v, want %d, %v", c.ids, lookups, id, got, ok, want, wok)
				}
			}
		}
	}
}

// TestEvaluatePredictions: the errors and predictions of a model on pairs
// of known and unknown users and items, over several blocks of the
// cores' work, are Predict's and the sums of a loop over them, bit for
// bit, with ids in a modest range and in a wide one.
func TestEvaluatePredictions(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, scale := range []int64{1, 1 << 35} {
		const users, items, k = 300, 200, 3
		m := &Model{Mean: 3, Min: 1, Max: 5, UserBias: make([]float64, users), ItemBias: make([]float64, items),
			L: mat.NewDense(users, k, nil), R: mat.NewDense(items, k, nil)}
		for u := range users {
			m.Users = append(m.Users, int64(2*u)*scale) // every other id
			m.UserBias[u] = rng.NormFloat64()
			for c := range k {
				m.L.Set(u, c, rng.NormFloat64())
			}
		}
		for i := range items {
			m.Items = append(m.Items, int64(3*i+1)*scale)
			m.ItemBias[i] = rng.NormFloat64()
			for c := range k {
				m.R.Set(i, c, rng.NormFloat64())
			}
		}
		const n = 3*(1<<14) + 17
		test := Ratings{Users: make([]int64, n), Items: make([]int64, n), Values: make([]float64, n)}
		unseen := 0
		for e := range n {
			test.Users[e] = int64(rng.IntN(2*users+2)) * scale // odd ids and one past the last unknown
			test.Items[e] = int64(rng.IntN(3*items+3)) * scale
			test.Values[e] = float64(1 + rng.IntN(5))
			_, okU := m.Users.Index(test.Users[e])
			_, okI := m.Items.Index(test.Items[e])
			if !okU || !okI {
				unseen++
			}
		}
		e, preds, err := m.EvaluatePredictions(test, nil)
		if err != nil {
			t.Fatal(err)
		}
		var sq, ab float64
		for j, v := range test.Values {
			p := m.Predict(test.Users[j], test.Items[j])
			if math.Float64bits(preds[j]) != math.Float64bits(p) {
				t.Fatalf("scale %d: pair %d: %v, Predict %v", scale, j, preds[j], p)
			}
			sq += (p - v) * (p - v)
			ab += math.Abs(p - v)
		}
		if e.N != n || e.Unseen != unseen || e.RMSE != math.Sqrt(sq/n) || e.MAE != ab/n {
			t.Errorf("scale %d: %+v, want %d ratings, %d unseen, RMSE %v, MAE %v", scale, e, n, unseen, math.Sqrt(sq/n), ab/n)
		}
		if unseen == 0 || unseen == n {
			t.Fatalf("scale %d: %d of %d unseen: the test covers one case only", scale, unseen, n)
		}
		all := m.PredictAll(test.Users, test.Items, nil)
		for j := range n {
			if math.Float64bits(all[j]) != math.Float64bits(preds[j]) {
				t.Fatalf("scale %d: pair %d: PredictAll %v, EvaluatePredictions %v", scale, j, all[j], preds[j])
			}
		}
		one := m.PredictAll(test.Users[:1], test.Items[:1], nil) // a search, not a table
		if math.Float64bits(one[0]) != math.Float64bits(preds[0]) {
			t.Errorf("scale %d: one pair: %v, want %v", scale, one[0], preds[0])
		}
		if ev, _ := m.Evaluate(test); ev != e {
			t.Errorf("scale %d: Evaluate %+v, EvaluatePredictions %+v", scale, ev, e)
		}
	}
}

// TestPredictAllLengths: pairs of users and items of different lengths
// are a programmer's error said in words, not a silent drop of the extra
// items (or an index out of range).
func TestPredictAllLengths(t *testing.T) {
	m := &Model{Users: IDs{1}, Items: IDs{1}, UserBias: []float64{0}, ItemBias: []float64{0}, Min: 1, Max: 5}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "PredictAll of 1 users and 3 items") {
			t.Errorf("recovered %v", r)
		}
	}()
	m.PredictAll([]int64{1}, []int64{1, 2, 3}, nil)
}
