package recommend

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestIDIndex: the indexer finds every id where Index does, and no id
// that is not among them (in a gap, below, above), by its table where the
// ids span a modest range and by a search where they do not.
func TestIDIndex(t *testing.T) {
	for _, ids := range []IDs{
		{},
		{7},
		{-3, -1, 0, 2, 5, 6, 100},
		{1, 1 << 40, 1<<40 + 3, math.MaxInt64}, // too wide for a table
	} {
		x := ids.indexer()
		if wide := len(ids) > 0 && ids[len(ids)-1]-ids[0] > 1<<30; wide != (x.table == nil) && len(ids) > 0 {
			t.Fatalf("%v: table %v", ids, x.table != nil)
		}
		for _, id := range []int64{math.MinInt64, -4, -3, -2, -1, 0, 1, 2, 3, 5, 6, 7, 8, 99, 100, 101, 1 << 40, 1<<40 + 1, 1<<40 + 3, math.MaxInt64} {
			want, wok := ids.Index(id)
			got, ok := x.index(id)
			if ok != wok || ok && got != want {
				t.Errorf("%v: id %d: %d, %v, want %d, %v", ids, id, got, ok, want, wok)
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
		if all := m.PredictAll(test.Users, test.Items, nil); len(all) != n || math.Float64bits(all[n-1]) != math.Float64bits(preds[n-1]) {
			t.Errorf("scale %d: PredictAll differs", scale)
		}
		if ev, _ := m.Evaluate(test); ev != e {
			t.Errorf("scale %d: Evaluate %+v, EvaluatePredictions %+v", scale, ev, e)
		}
	}
}
