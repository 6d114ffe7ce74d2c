package experiment

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/scaledsm/scaledsm/recommend"
)

// FoldRow compares, on the test ratings of the users (or items) held out,
// the model that folded them in with the model fitted on everything.
type FoldRow struct {
	Split, Side      string  // "users" or "items"
	Held             int     // users or items held out of the fit
	FoldRMSE         float64 `json:"fold_rmse"`
	WholeRMSE        float64 `json:"whole_rmse"`
	FoldP10          float64 `json:"fold_p10"`
	WholeP10         float64 `json:"whole_p10"`
	FoldNDCG         float64 `json:"fold_ndcg10"`
	WholeNDCG        float64 `json:"whole_ndcg10"`
	FoldSeconds      float64 `json:"fold_seconds"` // the fold-in alone
	Ratings          int     `json:"ratings"`      // folded in
	TestRatings      int     `json:"test_ratings"`
	FitWithoutSecond float64 `json:"fit_without_seconds"`
}

// RunFoldIn holds out fraction of the users (or of the items) of each
// split's training ratings (drawn from seed), fits the default model on
// the rest, folds the held-out ones' training ratings in, and measures the
// fold-in's and the whole fit's RMSE and top-10 lists on the test ratings
// of the held-out users (or items); whole is the model fitted on all the
// training ratings with the same settings.
func RunFoldIn(ctx context.Context, splits []RatingsSplit, s recommend.Settings, fraction float64, seed uint64) ([]FoldRow, error) {
	var out []FoldRow
	for _, sp := range splits {
		whole, err := recommend.Fit(ctx, sp.Train, s)
		if err != nil {
			return out, err
		}
		for _, side := range []string{"users", "items"} {
			ids := sp.Train.Users
			if side == "items" {
				ids = sp.Train.Items
			}
			held := heldIDs(ids, fraction, seed)
			isHeld := func(k int, r recommend.Ratings) bool {
				if side == "items" {
					return held[r.Items[k]]
				}
				return held[r.Users[k]]
			}
			rest, fold := splitBy(sp.Train, func(k int) bool { return isHeld(k, sp.Train) })
			test, _ := splitBy(sp.Test, func(k int) bool { return !isHeld(k, sp.Test) })
			begin := time.Now()
			part, err := recommend.Fit(ctx, rest, s)
			if err != nil {
				return out, err
			}
			fitSeconds := time.Since(begin).Seconds()
			begin = time.Now()
			folded, _, err := part.FoldIn(ctx, fold, s.Workers)
			if err != nil {
				return out, err
			}
			row := FoldRow{Split: sp.Name, Side: side, Held: len(held), Ratings: fold.Len(), TestRatings: test.Len(),
				FoldSeconds: time.Since(begin).Seconds(), FitWithoutSecond: fitSeconds}
			ef, _ := folded.Evaluate(test)
			ew, _ := whole.Evaluate(test)
			row.FoldRMSE, row.WholeRMSE = ef.RMSE, ew.RMSE
			rel := recommend.DefaultRelevant(whole.Min, whole.Max)
			if rf, err := folded.Ranking(); err == nil {
				mf, _ := rf.Evaluate(ctx, test, 10, rel)
				row.FoldP10, row.FoldNDCG = mf.Precision, mf.NDCG
			}
			if rw, err := whole.Ranking(); err == nil {
				mw, _ := rw.Evaluate(ctx, test, 10, rel)
				row.WholeP10, row.WholeNDCG = mw.Precision, mw.NDCG
			}
			out = append(out, row)
		}
	}
	return out, nil
}

// heldIDs draws each distinct id with probability fraction.
func heldIDs(ids []int64, fraction float64, seed uint64) map[int64]bool {
	u := slices.Clone(ids)
	slices.Sort(u)
	u = slices.Compact(u)
	rng := rand.New(rand.NewPCG(seed, 0xf01d))
	held := map[int64]bool{}
	for _, id := range u {
		if rng.Float64() < fraction {
			held[id] = true
		}
	}
	return held
}

// splitBy returns the ratings for which out is false and those for which
// it is true.
func splitBy(r recommend.Ratings, out func(k int) bool) (in, held recommend.Ratings) {
	for k := range r.Values {
		dst := &in
		if out(k) {
			dst = &held
		}
		dst.Users, dst.Items, dst.Values = append(dst.Users, r.Users[k]), append(dst.Items, r.Items[k]), append(dst.Values, r.Values[k])
	}
	return in, held
}

// WriteFoldTable writes RunFoldIn's rows.
func WriteFoldTable(w io.Writer, rows []FoldRow) {
	fmt.Fprintf(w, "fold-in of held-out users or items, against the fit of all the training ratings, on their test ratings\n")
	fmt.Fprintf(w, "%-6s %-6s %5s %7s %7s %7s %6s %7s %7s %7s %7s %8s\n", "split", "side", "held", "ratings", "test", "RMSE", "whole", "ratio", "P@10", "whole", "ratio", "fold s")
	for _, r := range rows {
		fmt.Fprintf(w, "%-6s %-6s %5d %7d %7d %7.4f %6.4f %7.4f %7.4f %7.4f %7.3f %8.4f\n", r.Split, r.Side, r.Held, r.Ratings, r.TestRatings,
			r.FoldRMSE, r.WholeRMSE, r.FoldRMSE/r.WholeRMSE, r.FoldP10, r.WholeP10, r.FoldP10/r.WholeP10, r.FoldSeconds)
	}
}

// KnownRow is the fold-in of known users' new ratings: half of each test
// user's test ratings folded in, the RMSE on the other half with and
// without them.
type KnownRow struct {
	Split       string  `json:"split"`
	Users       int     `json:"users"`
	Folded      int     `json:"folded"` // ratings folded in
	Scored      int     `json:"scored"` // ratings scored
	Without     float64 `json:"rmse_without"`
	With        float64 `json:"rmse_with"`
	FoldSeconds float64 `json:"fold_seconds"`
}

// RunKnownFold fits the default model to each split's training ratings,
// folds in half of each test user's test ratings (drawn from seed), and
// measures the RMSE on the other half before and after.
func RunKnownFold(ctx context.Context, splits []RatingsSplit, s recommend.Settings, seed uint64) ([]KnownRow, error) {
	var out []KnownRow
	for _, sp := range splits {
		m, err := recommend.Fit(ctx, sp.Train, s)
		if err != nil {
			return out, err
		}
		rng := rand.New(rand.NewPCG(seed, 0x4a1f))
		first := map[int64]bool{} // a user's first test rating went to the fold-in
		var fold, rest recommend.Ratings
		users := map[int64]bool{}
		for k, u := range sp.Test.Users {
			users[u] = true
			dst := &rest
			if rng.IntN(2) == 0 || !first[u] && k == len(sp.Test.Users)-1 {
				dst = &fold
				first[u] = true
			}
			dst.Users, dst.Items, dst.Values = append(dst.Users, u), append(dst.Items, sp.Test.Items[k]), append(dst.Values, sp.Test.Values[k])
		}
		before, _ := m.Evaluate(rest)
		begin := time.Now()
		folded, _, err := m.FoldIn(ctx, fold, s.Workers)
		if err != nil {
			return out, err
		}
		secs := time.Since(begin).Seconds()
		after, _ := folded.Evaluate(rest)
		out = append(out, KnownRow{Split: sp.Name, Users: len(users), Folded: fold.Len(), Scored: rest.Len(), Without: before.RMSE, With: after.RMSE, FoldSeconds: secs})
	}
	return out, nil
}

// WriteKnownTable writes RunKnownFold's rows.
func WriteKnownTable(w io.Writer, rows []KnownRow) {
	fmt.Fprintf(w, "known users' new ratings: half of each test user's test ratings folded in, RMSE on the other half\n")
	fmt.Fprintf(w, "%-6s %6s %7s %7s %8s %8s %7s %8s\n", "split", "users", "folded", "scored", "without", "with", "change", "fold s")
	for _, r := range rows {
		fmt.Fprintf(w, "%-6s %6d %7d %7d %8.4f %8.4f %+6.2f%% %8.4f\n", r.Split, r.Users, r.Folded, r.Scored, r.Without, r.With, 100*(r.With/r.Without-1), r.FoldSeconds)
	}
}
