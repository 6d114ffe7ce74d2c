package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/scaledsm/scaledsm/internal/mem"
	"github.com/scaledsm/scaledsm/recommend"
)

// ListsRow is one ranking model's lists on one split.
type ListsRow struct {
	Model string `json:"model"`
	// Skipped, when not empty, is why the model was not fitted (EASE's
	// dense item-item matrices larger than the memory).
	Skipped string                `json:"skipped,omitempty"`
	Setting string                `json:"setting,omitempty"` // the hyperparameters its validation chose
	Metrics recommend.ListMetrics `json:"metrics"`
	Seconds float64               `json:"seconds"` // fit, validation included, and lists
}

// ListsResult is what RunLists measured on one split.
type ListsResult struct {
	Split    string     `json:"split"`
	Relevant float64    `json:"relevant,omitempty"` // the least test rating relevant; 0 for interactions
	Rows     []ListsRow `json:"rows"`
}

// ListsOptions say how RunLists scores the lists.
type ListsOptions struct {
	N int // the lists' length
	// Implicit fits the model of interactions (recommend.FitInteractions)
	// and counts every test interaction relevant; else the default
	// recommender, a test rating relevant from Relevant on (0: the
	// lists' default, recommend.DefaultRelevant of the training scale).
	Implicit bool
	Relevant float64
	// Baselines are the ranking baselines run beside (recommend.Baselines
	// by default).
	Baselines []string
}

// RunLists fits the default model and the ranking baselines (each tuned
// on the same validation split of the training data, never on the test)
// to each split's training data and scores their lists on its test data.
func RunLists(ctx context.Context, splits []RatingsSplit, s recommend.Settings, o ListsOptions, progress func(split string, row ListsRow)) ([]ListsResult, error) {
	if o.Baselines == nil {
		o.Baselines = recommend.Baselines
	}
	var out []ListsResult
	for _, sp := range splits {
		rel := math.Inf(-1)
		if !o.Implicit {
			rel = o.Relevant
			if rel == 0 {
				lo, hi := valueRange(sp.Train.Values)
				rel = recommend.DefaultRelevant(lo, hi)
			}
		}
		res := ListsResult{Split: sp.Name}
		if !o.Implicit {
			res.Relevant = rel
		}
		add := func(name string, fit func() (*recommend.Ranking, error)) error {
			begin := time.Now()
			rk, err := fit()
			var tooBig *mem.TooBig
			if errors.As(err, &tooBig) && name != ModelDefault {
				row := ListsRow{Model: name, Skipped: err.Error()}
				res.Rows = append(res.Rows, row)
				if progress != nil {
					progress(sp.Name, row)
				}
				return nil
			}
			if err != nil {
				return fmt.Errorf("%s, %s: %w", sp.Name, name, err)
			}
			m, err := rk.Evaluate(ctx, sp.Test, o.N, rel)
			if err != nil {
				return err
			}
			row := ListsRow{Model: name, Setting: rk.Setting, Metrics: m, Seconds: time.Since(begin).Seconds()}
			res.Rows = append(res.Rows, row)
			if progress != nil {
				progress(sp.Name, row)
			}
			return nil
		}
		err := add(ModelDefault, func() (*recommend.Ranking, error) {
			var m *recommend.Model
			var err error
			if o.Implicit {
				m, err = recommend.FitInteractions(ctx, sp.Train.Index(), s)
			} else {
				m, err = recommend.Fit(ctx, sp.Train, s)
			}
			if err != nil {
				return nil, err
			}
			return m.Ranking()
		})
		if err != nil {
			return out, err
		}
		relBase := rel
		for _, name := range o.Baselines {
			err := add(name, func() (*recommend.Ranking, error) {
				return recommend.FitBaseline(ctx, sp.Train.Index(), name, relBase, s)
			})
			if err != nil {
				return out, err
			}
		}
		out = append(out, res)
	}
	return out, nil
}

// valueRange returns the least and the greatest of v.
func valueRange(v []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

// WriteListsTable writes the results of RunLists: a line per split and
// model with its precision, recall, NDCG and MAP at N, its coverage, the
// setting its validation chose and its time; then each model's means.
func WriteListsTable(w io.Writer, res []ListsResult) {
	if len(res) == 0 || len(res[0].Rows) == 0 {
		return
	}
	n := res[0].Rows[0].Metrics.N
	what := "every test interaction relevant"
	if r := res[0].Relevant; r != 0 {
		what = fmt.Sprintf("relevant: test ratings >= %g", r)
	}
	fmt.Fprintf(w, "top-%d lists (%s; the users' training items never listed)\n", n, what)
	fmt.Fprintf(w, "%-6s %-9s %6s %7s %7s %7s %7s %8s %8s  %s\n", "split", "model", "users", fmt.Sprintf("P@%d", n), fmt.Sprintf("R@%d", n),
		fmt.Sprintf("NDCG@%d", n), fmt.Sprintf("MAP@%d", n), "coverage", "seconds", "setting (chosen on validation)")
	type sums struct{ p, r, ndcg, mAP float64 }
	total := make([]sums, len(res[0].Rows))
	for _, r := range res {
		for j, row := range r.Rows {
			m := row.Metrics
			if row.Skipped != "" {
				fmt.Fprintf(w, "%-6s %-9s  not fitted: %s\n", r.Split, row.Model, row.Skipped)
				continue
			}
			fmt.Fprintf(w, "%-6s %-9s %6d %7.4f %7.4f %7.4f %7.4f %8.3f %8.2f  %s\n", r.Split, row.Model, m.Users, m.Precision, m.Recall, m.NDCG, m.MAP, m.Coverage, row.Seconds, row.Setting)
			if j < len(total) {
				total[j].p += m.Precision
				total[j].r += m.Recall
				total[j].ndcg += m.NDCG
				total[j].mAP += m.MAP
			}
		}
	}
	if len(res) > 1 {
		k := float64(len(res))
		for j, row := range res[0].Rows {
			t := total[j]
			fmt.Fprintf(w, "%-6s %-9s %6s %7.4f %7.4f %7.4f %7.4f\n", "mean", row.Model, "", t.p/k, t.r/k, t.ndcg/k, t.mAP/k)
		}
	}
}
