package recommend_test

import (
	"context"
	"fmt"
	"math"

	"github.com/scaledsm/scaledsm/recommend"
	"github.com/scaledsm/scaledsm/synth"
)

// Fit a recommender to ratings, with no setting given, and predict
// ratings it did not see, including those of a user it did not have.
func ExampleFit() {
	d, err := synth.GenerateRatings(synth.RatingsConfig{Users: 300, Items: 400, Ratings: 20000, Seed: 1})
	if err != nil {
		panic(err)
	}
	all := recommend.Ratings{Users: d.Users, Items: d.Items, Values: d.Values}
	train, test, err := recommend.Split(all, 0.1, 1)
	if err != nil {
		panic(err)
	}
	m, err := recommend.Fit(context.Background(), train, recommend.Settings{})
	if err != nil {
		panic(err)
	}
	biases, err := recommend.Biases(train, recommend.DefaultBiasUser, recommend.DefaultBiasItem)
	if err != nil {
		panic(err)
	}
	e, _ := m.Evaluate(test)
	b, _ := biases.Evaluate(test)
	// The rank is chosen in one chain that grows it while the held-out
	// ratings say so; m.Info.Selection has what each rank measured.
	fmt.Printf("rank chosen among %d or more: %v\n", recommend.Ranks[0], m.Info.Rank >= recommend.Ranks[0])
	fmt.Printf("test RMSE below the biases': %v\n", e.RMSE < b.RMSE)
	i, _ := m.Items.Index(2)
	fmt.Printf("a new user gets the mean and the item's bias: %v\n", m.Predict(-1, 2) == min(max(m.Mean+m.ItemBias[i], m.Min), m.Max))
	// Output:
	// rank chosen among 5 or more: true
	// test RMSE below the biases': true
	// a new user gets the mean and the item's bias: true
}

// Lay ratings out once for a fit and for the baselines it is compared
// with: the table is the fit's memory (6 to 10 bytes a rating for half
// stars, by the number of users and items, up to 16 for values of more
// than 255 kinds), and the ratings read can be let
// go once it is made (LayOutTaking takes them).
func ExampleLayOut() {
	d, err := synth.GenerateRatings(synth.RatingsConfig{Users: 300, Items: 400, Ratings: 20000, Seed: 1})
	if err != nil {
		panic(err)
	}
	all := recommend.Ratings{Users: d.Users, Items: d.Items, Values: d.Values}
	train, test, err := recommend.Split(all, 0.1, 1)
	if err != nil {
		panic(err)
	}
	s := recommend.Settings{Rank: 5, Sweeps: 40}
	tb, err := recommend.LayOut(train.Index(), s)
	if err != nil {
		panic(err)
	}
	biases, err := tb.Biases(recommend.DefaultBiasUser, recommend.DefaultBiasItem) // before the fit
	if err != nil {
		panic(err)
	}
	m, err := recommend.FitTable(context.Background(), tb, s)
	if err != nil {
		panic(err)
	}
	e, _ := m.Evaluate(test)
	b, _ := biases.Evaluate(test)
	fmt.Printf("test RMSE below the biases': %v\n", e.RMSE < b.RMSE)
	// Output:
	// test RMSE below the biases': true
}

// Evaluate a model on test ratings and keep the predictions the errors
// are of, in one pass over them: what `solve --test` writes to test.csv.
func ExampleModel_EvaluatePredictions() {
	d, err := synth.GenerateRatings(synth.RatingsConfig{Users: 300, Items: 400, Ratings: 20000, Seed: 1})
	if err != nil {
		panic(err)
	}
	all := recommend.Ratings{Users: d.Users, Items: d.Items, Values: d.Values}
	train, test, err := recommend.Split(all, 0.1, 1)
	if err != nil {
		panic(err)
	}
	m, err := recommend.Biases(train, recommend.DefaultBiasUser, recommend.DefaultBiasItem)
	if err != nil {
		panic(err)
	}
	e, preds, err := m.EvaluatePredictions(test, nil)
	if err != nil {
		panic(err)
	}
	var sq float64
	for k, p := range preds {
		sq += (p - test.Values[k]) * (p - test.Values[k])
	}
	fmt.Printf("%d predictions, each Predict's: %v\n", len(preds), preds[0] == m.Predict(test.Users[0], test.Items[0]))
	fmt.Printf("RMSE of them: %v\n", e.RMSE == math.Sqrt(sq/float64(len(preds))))
	// Output:
	// 2000 predictions, each Predict's: true
	// RMSE of them: true
}
