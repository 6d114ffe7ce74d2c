package experiment

import (
	"strings"
	"testing"

	"github.com/scaledsm/scaledsm/recommend"
)

// TestCorruptSplits: each split's training ratings corrupted as Corrupt
// does from seed+i, the test ratings kept, and with oracle two oracle
// splits a split, the second no larger than the first's training set.
func TestCorruptSplits(t *testing.T) {
	r := recommend.Ratings{Users: make([]int64, 200), Items: make([]int64, 200), Values: make([]float64, 200)}
	for k := range r.Values {
		r.Users[k], r.Items[k], r.Values[k] = int64(k%17), int64(k%23), float64(1+k%5)
	}
	splits := []RatingsSplit{{Name: "a", Train: r, Test: r}, {Name: "b", Train: r, Test: r}}
	if same, o := CorruptSplits(splits, 0, 1, true); len(o) != 0 || &same[0] != &splits[0] {
		t.Errorf("frac 0 changed the splits or made oracles")
	}
	got, oracles := CorruptSplits(splits, 0.3, 7, true)
	want, idx := Corrupt(r, 0.3, 8)
	if len(got) != 2 || len(oracles) != 4 || got[1].Train.Values[idx[0]] != want.Values[idx[0]] || splits[1].Train.Values[idx[0]] != r.Values[idx[0]] {
		t.Fatalf("%d splits, %d oracles", len(got), len(oracles))
	}
	if o := oracles[2]; o.Name != "b without the replaced" || o.Train.Len() != r.Len()-len(idx) || oracles[3].Train.Len() < o.Train.Len() {
		t.Errorf("oracles %q (%d) and %q (%d)", o.Name, o.Train.Len(), oracles[3].Name, oracles[3].Train.Len())
	}
}

func TestWriteRatingsTable(t *testing.T) {
	res := []RatingsResult{
		{Split: "u1", Train: 80, Test: 20, Rows: []RatingsRow{{Model: "scaledsm", RMSE: 0.9, MAE: 0.7, Seconds: 1.5, Rank: 5, Sweeps: 100}, {Model: "biases", RMSE: 1, MAE: 0.8}}},
		{Split: "u2", Train: 80, Test: 20, Rows: []RatingsRow{{Model: "scaledsm", RMSE: 0.8, MAE: 0.6, Seconds: 2, Rank: 10, Sweeps: 90}, {Model: "biases", RMSE: 1.1, MAE: 0.9}}},
	}
	var b strings.Builder
	WriteRatingsTable(&b, res, 0.1)
	for _, want := range []string{"10% replaced", "u1          80      20       0   0.9000 (0.7000)", "mean", "  0.8500", "u1 5/100 u2 10/90"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("want %q in\n%s", want, b.String())
		}
	}
}
