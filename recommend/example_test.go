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
	fmt.Printf("rank %d chosen, %d ranks tried in one chain\n", m.Info.Rank, len(m.Info.Selection.Candidates))
	fmt.Printf("user 1, item 2: %.2f\n", m.Predict(1, 2))
	fmt.Printf("a new user, item 2: %.2f (the mean %.2f and the item's bias %.2f)\n", m.Predict(-1, 2), m.Mean, m.Predict(-1, 2)-m.Mean)
	// Output:
	// rank 10 chosen, 2 ranks tried in one chain
	// user 1, item 2: 4.19
	// a new user, item 2: 3.81 (the mean 3.73 and the item's bias 0.09)
}
