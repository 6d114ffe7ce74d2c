package synth

import "testing"

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
