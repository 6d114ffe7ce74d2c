package report

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/scaledsm/scaledsm/internal/csvfmt"
	"github.com/scaledsm/scaledsm/recommend"
)

// Recommender is the summary of a recommender's solve.
type Recommender struct {
	Problem   string               `json:"problem"`          // "ratings" or "interactions"
	Weight    string               `json:"weight,omitempty"` // interactions: the weight of each (solve --weight)
	Model     string               `json:"model"`
	Ratings   string               `json:"ratings_file"`
	Count     int                  `json:"ratings"`
	Users     int                  `json:"users"`
	Items     int                  `json:"items"`
	Observed  float64              `json:"observed"` // the fraction of the user-item pairs rated
	Min       float64              `json:"min"`
	Max       float64              `json:"max"`
	Status    string               `json:"status"` // "fitted" or "interrupted"
	Seconds   float64              `json:"seconds"`
	Rank      int                  `json:"rank"`                // of each sweep's factors
	ModelRank int                  `json:"model_rank"`          // columns of L and R
	Sweeps    int                  `json:"sweeps"`              // of the final fit
	Continued int                  `json:"continued,omitempty"` // of those, the sweeps on all the ratings of a continued chain
	Nu        float64              `json:"nu"`                  // 0: Gaussian
	Penalty   float64              `json:"penalty"`             // ridge
	NoiseSD   float64              `json:"noise_sd"`            // bayes
	Seed      uint64               `json:"seed"`
	Selection *recommend.Selection `json:"selection,omitempty"`
	// Ranks is the number of processes of an MPI job that shared the fit
	// (recommend.Settings.Reducer), 0 alone. Then, for each rank in rank
	// order: its peak resident set size in MB, the seconds it spent in
	// collectives (waiting for the others included), the MB of ratings it
	// received when the ranks exchanged them, and the KB it received in
	// the fit's other collectives (the rows, mostly) per sweep made.
	Ranks           int       `json:"ranks,omitempty"`
	RankPeakMB      []float64 `json:"rank_peak_rss_mb,omitempty"`
	RankCommSeconds []float64 `json:"rank_comm_seconds,omitempty"`
	RankExchangeMB  []float64 `json:"rank_exchange_mb,omitempty"`
	RankSweepKB     []float64 `json:"rank_sweep_kb,omitempty"`
	// Lists is the ranking part (recommend.Lists), nil without one.
	Lists *Lists `json:"lists,omitempty"`
	// Evaluation on --holdout or --test.
	Holdout   *float64         `json:"holdout,omitempty"`
	TestFile  string           `json:"test_file,omitempty"`
	Test      *Evaluation      `json:"test,omitempty"`
	TestLists *ListsEvaluation `json:"test_lists,omitempty"`
	Files     []string         `json:"files,omitempty"`
}

// Lists summarizes a model's lists.
type Lists struct {
	Rank         int                      `json:"rank"`
	Pop          float64                  `json:"pop"`
	Lambda       float64                  `json:"lambda"`
	Interactions int                      `json:"interactions"`
	Selection    *recommend.ListSelection `json:"selection,omitempty"`
}

// ListsEvaluation is the lists' metrics on the test interactions, and the
// most popular items' (the baseline a user would try first), at 10 and 20.
type ListsEvaluation struct {
	Relevant float64                 `json:"relevant,omitempty"` // least test rating relevant; 0 for interactions
	Model    []recommend.ListMetrics `json:"model"`
	Popular  []recommend.ListMetrics `json:"popular"`
}

// NewLists summarizes m's lists, nil without any.
func NewLists(m *recommend.Model) *Lists {
	l := m.Lists
	if l == nil {
		return nil
	}
	n := 0
	if m.Seen != nil {
		n = m.Seen.Len()
	}
	return &Lists{Rank: l.Rank(), Pop: l.Pop, Lambda: l.Lambda, Interactions: n, Selection: l.Selection}
}

// EvaluateLists scores m's lists of 10 and 20 items and the most popular
// items' on test (relevant from relevant on; -Inf: every interaction).
func EvaluateLists(ctx context.Context, m *recommend.Model, test recommend.Ratings, relevant float64) (*ListsEvaluation, error) {
	rk, err := m.Ranking()
	if err != nil {
		return nil, err
	}
	pop := rk.Popular()
	e := &ListsEvaluation{}
	if !math.IsInf(relevant, -1) {
		e.Relevant = relevant
	}
	for _, n := range []int{10, 20} {
		n = min(n, len(m.Items))
		a, err := rk.Evaluate(ctx, test, n, relevant)
		if err != nil {
			return nil, err
		}
		b, err := pop.Evaluate(ctx, test, n, relevant)
		if err != nil {
			return nil, err
		}
		e.Model, e.Popular = append(e.Model, a), append(e.Popular, b)
	}
	return e, nil
}

// Evaluation is the model's and the baselines' errors on test ratings.
type Evaluation struct {
	Ratings    int     `json:"ratings"`
	Unseen     int     `json:"unseen"` // with a user or an item not in the training ratings
	RMSE       float64 `json:"test_rmse"`
	MAE        float64 `json:"test_mae"`
	MeanRMSE   float64 `json:"global_mean_rmse"`
	MeanMAE    float64 `json:"global_mean_mae"`
	BiasesRMSE float64 `json:"biases_rmse"`
	BiasesMAE  float64 `json:"biases_mae"`
}

// NewRecommender summarizes a fitted model.
func NewRecommender(model, path string, count int, m *recommend.Model) *Recommender {
	return &Recommender{Problem: "ratings", Model: model, Ratings: path, Count: count,
		Users: len(m.Users), Items: len(m.Items), Observed: float64(count) / (float64(len(m.Users)) * float64(len(m.Items))),
		Min: m.Min, Max: m.Max, Status: "fitted", Rank: m.Info.Rank, ModelRank: m.Rank(), Sweeps: m.Info.Sweeps, Continued: m.Info.Continued,
		Nu: m.Info.Nu, Penalty: m.Info.Lambda, NoiseSD: m.Info.NoiseSD, Seed: m.Info.Seed, Selection: m.Info.Selection}
}

// Baselines returns the baselines a recommender is compared with, fitted
// to the table of its ratings before its fit (recommend.LayOut): the
// global mean and the biases (recommend.Biases with its default
// penalties), with no table of their own. On the ranks of an MPI job,
// every rank calls it on its share.
func Baselines(tb *recommend.Table) (mean, biases *recommend.Model, err error) {
	if mean, err = tb.Biases(math.Inf(1), math.Inf(1)); err != nil {
		return nil, nil, err
	}
	biases, err = tb.Biases(recommend.DefaultBiasUser, recommend.DefaultBiasItem)
	return mean, biases, err
}

// Evaluate returns the errors on test of the model and of the baselines
// mean and biases (see Baselines), and the model's predictions.
func Evaluate(m, mean, biases *recommend.Model, test recommend.Ratings) (*Evaluation, []float64, error) {
	e, preds, err := m.EvaluatePredictions(test, nil)
	if err != nil {
		return nil, nil, err
	}
	em, _ := mean.Evaluate(test)
	eb, _ := biases.Evaluate(test)
	return &Evaluation{Ratings: e.N, Unseen: e.Unseen, RMSE: e.RMSE, MAE: e.MAE,
		MeanRMSE: em.RMSE, MeanMAE: em.MAE, BiasesRMSE: eb.RMSE, BiasesMAE: eb.MAE}, preds, nil
}

// Print prints the summary for a person.
func (s *Recommender) Print(w io.Writer, out string) {
	if s.Model == recommend.MethodImplicit {
		fmt.Fprintf(w, "problem    interactions from %s: %d of %d items by %d users (%.2g%% of the pairs), weights %s\n",
			s.Ratings, s.Count, s.Items, s.Users, 100*s.Observed, s.Weight)
	} else {
		fmt.Fprintf(w, "problem    ratings from %s: %d ratings of %d items by %d users (%.2g%% of the pairs), scale [%s, %s]\n",
			s.Ratings, s.Count, s.Items, s.Users, 100*s.Observed, csvfmt.Float(s.Min), csvfmt.Float(s.Max))
	}
	switch s.Model {
	case recommend.MethodImplicit:
	case recommend.Ridge.String():
		fmt.Fprintf(w, "model      ridge: mean + user and item biases + rank-%d factors, least squares with penalty %s (ALS-WR), %d sweeps\n",
			s.Rank, csvfmt.Float(s.Penalty), s.Sweeps)
	default:
		lik := fmt.Sprintf("Student-t likelihood (nu %s)", csvfmt.Float(s.Nu))
		if s.Nu == 0 {
			lik = "Gaussian likelihood"
		}
		cont := ""
		if s.Continued > 0 {
			cont = fmt.Sprintf(", the last %d on all the ratings", s.Continued)
		}
		fmt.Fprintf(w, "model      bayes: mean + user and item biases + rank-%d factors, %s; %d sweeps sampled and averaged%s (noise sd %.3g)\n",
			s.Rank, lik, s.Sweeps, cont, s.NoiseSD)
	}
	if sel := s.Selection; sel != nil {
		var c []string
		for j, k := range sel.Candidates {
			switch {
			case s.Model == recommend.Ridge.String():
				c = append(c, fmt.Sprintf("rank %d penalty %s %.4f (%d sweeps)", k.Rank, csvfmt.Float(k.Lambda), k.RMSE, k.Best))
			case j == 0:
				c = append(c, fmt.Sprintf("one chain: rank %d %.4f after %d sweeps", k.Rank, k.RMSE, k.Sweeps))
			case j > sel.Chosen:
				c = append(c, fmt.Sprintf("rank %d %.4f after %d more (undone)", k.Rank, k.RMSE, k.Sweeps))
			default:
				c = append(c, fmt.Sprintf("rank %d %.4f after %d more", k.Rank, k.RMSE, k.Sweeps))
			}
		}
		ch := sel.Candidates[sel.Chosen]
		fmt.Fprintf(w, "selection  validation RMSE on %d held-out ratings (%.3g%%): %s; chose rank %d\n", sel.Ratings, 100*sel.Fraction, strings.Join(c, ", "), ch.Rank)
	}
	if l := s.Lists; l != nil {
		s.printLists(w, l)
	}
	if t := s.Test; t != nil {
		what := "test       " + s.TestFile
		if s.Holdout != nil {
			what = fmt.Sprintf("holdout    %.3g%% of the ratings", 100**s.Holdout)
		}
		fmt.Fprintf(w, "%s: %d ratings (%d with an unseen user or item): RMSE %.4f, MAE %.4f; global mean %.4f, %.4f; biases %.4f, %.4f\n",
			what, t.Ratings, t.Unseen, t.RMSE, t.MAE, t.MeanRMSE, t.MeanMAE, t.BiasesRMSE, t.BiasesMAE)
	}
	if e := s.TestLists; e != nil {
		what := "lists      on " + s.TestFile
		if s.Holdout != nil {
			what = fmt.Sprintf("lists      on the %.3g%% held out", 100**s.Holdout)
		}
		if e.Relevant != 0 {
			what += fmt.Sprintf(" (relevant: ratings >= %s)", csvfmt.Float(e.Relevant))
		}
		var parts []string
		for j, m := range e.Model {
			p := e.Popular[j]
			parts = append(parts, fmt.Sprintf("P@%d %.4f, R@%d %.4f, NDCG@%d %.4f (most popular %.4f, %.4f, %.4f)", m.N, m.Precision, m.N, m.Recall, m.N, m.NDCG, p.Precision, p.Recall, p.NDCG))
		}
		fmt.Fprintf(w, "%s, %d users: %s\n", what, e.Model[0].Users, strings.Join(parts, "; "))
	}
	if s.Ranks > 1 {
		fmt.Fprintf(w, "ranks      %d processes shared the sweeps (mpirun), each holding the ratings of its part of the users and items\n", s.Ranks)
		if len(s.RankPeakMB) == s.Ranks {
			fmt.Fprintf(w, "           peak RSS %s MB; received per sweep %s KB, and %s MB of ratings once\n",
				joinFloats(s.RankPeakMB, "%.0f"), joinFloats(s.RankSweepKB, "%.0f"), joinFloats(s.RankExchangeMB, "%.1f"))
		}
	}
	fmt.Fprintf(w, "time       %.3g s\n", s.Seconds)
	if out != "" {
		fmt.Fprintf(w, "results    %s: %s\n", out, strings.Join(s.Files, ", "))
	}
}

// printLists prints the lists' line.
func (s *Recommender) printLists(w io.Writer, l *Lists) {
	what := "interactions"
	if s.Model != recommend.MethodImplicit {
		what = "ratings (which items each user rated, weighted by the rating)"
	}
	fmt.Fprintf(w, "lists      rank-%d ridge regression of %d %s on themselves, item columns scaled by weight^-%s, penalty %s\n",
		l.Rank, l.Interactions, what, csvfmt.Float(l.Pop), csvfmt.Float(l.Lambda))
	if sel := l.Selection; sel != nil && len(sel.Candidates) > 0 {
		fmt.Fprintf(w, "           chosen by %s of %d users' lists on %d interactions held out (%.3g%%): %.4f, best of %d settings (%.2g s)\n",
			sel.Metric, sel.Users, sel.HeldOut, 100*sel.Fraction, sel.Candidates[sel.Chosen].Score, len(sel.Candidates), sel.Seconds)
	}
}

// joinFloats formats each of v and joins them with "/".
func joinFloats(v []float64, format string) string {
	parts := make([]string, len(v))
	for k, x := range v {
		parts[k] = fmt.Sprintf(format, x)
	}
	return strings.Join(parts, "/")
}
