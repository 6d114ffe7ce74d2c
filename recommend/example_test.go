package recommend_test

import (
	"context"
	"fmt"

	"github.com/scaledsm/scaledsm/recommend"
	"github.com/scaledsm/scaledsm/synth"
)

// Fit a recommender to ratings, with no setting given, and predict a
// rating, including one by a user the ratings did not have.
func ExampleFit() {
	d, err := synth.GenerateRatings(synth.RatingsConfig{Users: 300, Items: 400, Ratings: 20000, Seed: 1})
	if err != nil {
		panic(err)
	}
	train := recommend.Ratings{Users: d.Users, Items: d.Items, Values: d.Values}
	m, err := recommend.Fit(context.Background(), train, recommend.Settings{})
	if err != nil {
		panic(err)
	}
	// The rank is chosen in one chain that grows it while the held-out
	// ratings say so; m.Info.Selection has what each rank measured.
	fmt.Printf("rank chosen among %d or more: %v\n", recommend.Ranks[0], m.Info.Rank >= recommend.Ranks[0])
	fmt.Printf("user 1, item 2: %.1f\n", m.Predict(1, 2))
	fmt.Printf("a new user, item 2: %.1f (the mean %.2f and the item's bias)\n", m.Predict(-1, 2), m.Mean)
	// Output:
	// rank chosen among 5 or more: true
	// user 1, item 2: 4.2
	// a new user, item 2: 3.8 (the mean 3.73 and the item's bias)
}
