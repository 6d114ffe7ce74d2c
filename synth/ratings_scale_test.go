package synth

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestEachRatingDistinct draws half the pairs of a small grid, where most
// draws hit a pair already drawn: every pair comes once, the ratings are
// GenerateRatings', and yield's false stops the draws.
func TestEachRatingDistinct(t *testing.T) {
	c := RatingsConfig{Users: 300, Items: 400, Ratings: 60000, Seed: 3}
	d, err := GenerateRatings(c)
	if err != nil {
		t.Fatal(err)
	}
	seen := make(map[[2]int64]bool, c.Ratings)
	k := 0
	err = EachRating(c, func(r Rating) bool {
		p := [2]int64{r.User, r.Item}
		if seen[p] {
			t.Fatalf("pair %v drawn twice", p)
		}
		seen[p] = true
		if r.User != d.Users[k] || r.Item != d.Items[k] || r.Value != d.Values[k] {
			t.Fatalf("rating %d: %+v, GenerateRatings has %d %d %v", k, r, d.Users[k], d.Items[k], d.Values[k])
		}
		k++
		return true
	})
	if err != nil || k != c.Ratings {
		t.Fatalf("%d ratings, error %v", k, err)
	}
	n := 0
	EachRating(c, func(Rating) bool { n++; return n < 10 })
	if n != 10 {
		t.Fatalf("yield false after 10: %d ratings drawn", n)
	}
}

// TestRatingsShapes draws each shape of RatingsLike at a smaller size and
// checks what makes it that shape: Jester's continuous values on
// [-10, 10]; the Zipf shape's head (its 1% most rated items take a large
// share of the ratings, against a small one under the log-normal law) and
// its heavy-tailed noise (the noise's kurtosis well above a Gaussian's 3).
func TestRatingsShapes(t *testing.T) {
	jes, err := RatingsLike("jester", 1)
	if err != nil {
		t.Fatal(err)
	}
	jes.Users, jes.Ratings = 2000, 80000
	d, err := GenerateRatings(jes)
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[float64]bool{}
	for _, v := range d.Values {
		if v < -10 || v > 10 {
			t.Fatalf("jester: value %v outside [-10, 10]", v)
		}
		distinct[v] = true
	}
	if len(distinct) < len(d.Values)/2 {
		t.Errorf("jester: %d distinct values of %d: want a continuous scale", len(distinct), len(d.Values))
	}
	head := func(c RatingsConfig) float64 {
		d, err := GenerateRatings(c)
		if err != nil {
			t.Fatal(err)
		}
		n := make([]int, c.Items+1)
		for _, i := range d.Items {
			n[i]++
		}
		slices.Sort(n)
		slices.Reverse(n)
		top := 0
		for _, v := range n[:c.Items/100] {
			top += v
		}
		return float64(top) / float64(len(d.Items))
	}
	zipf, err := RatingsLike("zipf", 1)
	if err != nil {
		t.Fatal(err)
	}
	zipf.Users, zipf.Items, zipf.Ratings = 5000, 2000, 100000
	logn := zipf
	logn.Zipf = 0
	hz, hl := head(zipf), head(logn)
	t.Logf("the top 1%% of the items: %.3f of the ratings (zipf), %.3f (log-normal)", hz, hl)
	if hz < 0.2 || hz < 2*hl {
		t.Errorf("zipf: the top 1%% of the items take %.3f of the ratings (log-normal: %.3f): want 0.2 and twice as much", hz, hl)
	}
	zipf.Step = -1 // unrounded: the noise as drawn
	zipf.Min, zipf.Max = -1e9, 1e9
	d, err = GenerateRatings(zipf)
	if err != nil {
		t.Fatal(err)
	}
	var m2, m4 float64
	for k, v := range d.Values {
		e := v - d.Expected[k]
		m2 += e * e
		m4 += e * e * e * e
	}
	m2 /= float64(len(d.Values))
	m4 /= float64(len(d.Values))
	t.Logf("zipf: noise sd %.3f, kurtosis %.1f", math.Sqrt(m2), m4/(m2*m2))
	if sd, kurt := math.Sqrt(m2), m4/(m2*m2); math.Abs(sd-zipf.Noise) > 0.05*zipf.Noise || kurt < 6 {
		t.Errorf("zipf: noise sd %.3f (want %.3f), kurtosis %.1f (want a heavy tail, above 6)", sd, zipf.Noise, kurt)
	}
	if _, err := RatingsLike("netflix", 1); err == nil {
		t.Error("an unknown shape was accepted")
	}
}

// TestRatingsConfigNegative: a negative deviation or skew is refused; a
// negative signal made every rating NaN without an error.
func TestRatingsConfigNegative(t *testing.T) {
	for _, c := range []RatingsConfig{{Signal: -1}, {Noise: -0.5}, {UserBias: -1}, {Skew: -2}} {
		c.Users, c.Items, c.Ratings, c.Seed = 300, 300, 5000, 1
		if _, err := GenerateRatings(c); err == nil || !strings.Contains(err.Error(), "must be positive (0 is the default)") {
			t.Errorf("%+v: %v", c, err)
		}
	}
}
