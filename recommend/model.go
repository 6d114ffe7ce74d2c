package recommend

import (
	"fmt"
	"math"
	"runtime"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm/internal/par"
)

// A Model predicts ratings:
//
//	prediction(u, i) = clip(Mean + UserBias[u] + ItemBias[i] + L_u · R_i, Min, Max)
//
// with u and i the indices of the user's and the item's ids among Users
// and Items. A user or an item that the training ratings did not have
// gets no bias and no factor term: an unseen user is predicted by
// Mean + ItemBias[i], an unseen item by Mean + UserBias[u], and a pair of
// both by Mean. Predictions are clipped to the scale of the training
// ratings, [Min, Max].
//
// Models are made by Fit (and by the baselines GlobalMean and Biases) and
// are read-only afterwards: Predict may be called from several goroutines.
type Model struct {
	Mean               float64
	Users, Items       IDs        // the ids, increasing
	UserBias, ItemBias []float64  // one per user, one per item
	L, R               *mat.Dense // len(Users)×k and len(Items)×k; nil for a model of biases alone
	Min, Max           float64    // the scale of the training ratings
	Info               Info       // how the model was fitted
	// Lists, when not nil, ranks items for top-N lists (Recommend): fitted
	// beside the ratings model by default, and alone from implicit
	// feedback (FitInteractions).
	Lists *Lists
	// Seen, when not nil, are the training ratings (or interactions) by
	// user: the items lists leave out, and the ratings a fold-in of a
	// known user's new ones adds to (FoldIn). A fit on MPI ranks keeps
	// none.
	Seen *Seen

	priors [2]cachedPrior // the users' and the items' rows' priors (FoldIn)
}

// Info says how a model was fitted.
type Info struct {
	Method string  `json:"method"` // "bayes", "ridge", "biases" or "mean"
	Rank   int     `json:"rank"`   // the rank of each sweep's factors (the model's L and R may have more columns, see Fit)
	Nu     float64 `json:"nu"`     // degrees of freedom of the Student-t likelihood; 0 for a Gaussian one (Settings.Nu's +Inf: there 0 is DefaultNu)
	Lambda float64 `json:"lambda"` // the ridge penalty of a "ridge" or "biases" model
	Sweeps int     `json:"sweeps"` // sweeps made by the final fit (a continued chain: its sweeps and the continuation's)
	// Continued is the number of sweeps on all the ratings by which the
	// chosen chain of a "bayes" selection was continued (see Fit); 0 for a
	// model fitted from scratch.
	Continued int     `json:"continued,omitempty"`
	Ratings   int     `json:"ratings"`  // ratings fitted
	NoiseSD   float64 `json:"noise_sd"` // the fitted noise level: the posterior mean of 1/√α ("bayes")
	Seed      uint64  `json:"seed"`
	Seconds   float64 `json:"seconds"` // the whole fit, selection included
	// FoldedIn counts the ratings folded in since the fit (FoldIn).
	FoldedIn int `json:"folded_in,omitempty"`
	// Weight, for a model of implicit feedback, says how its interactions
	// were weighed from the file's counts ("one", "log", "raw": solve
	// --weight), for the fold-ins to weigh theirs alike; "" for "one".
	Weight string `json:"weight,omitempty"`
	// Selection is the validation that chose the rank and the number of
	// sweeps (or the ridge penalty), nil when they were given.
	Selection *Selection `json:"selection,omitempty"`
}

// Selection is what the validation of Fit measured.
type Selection struct {
	Fraction   float64     `json:"fraction"` // of the ratings held out
	Ratings    int         `json:"ratings"`  // held out
	Candidates []Candidate `json:"candidates"`
	Chosen     int         `json:"chosen"` // the index of the chosen candidate
}

// Candidate is one setting tried on the validation ratings: for the
// Bayesian fit, one rank of its one chain.
type Candidate struct {
	Rank    int     `json:"rank"`
	Lambda  float64 `json:"lambda,omitempty"` // "ridge" only
	Sweeps  int     `json:"sweeps"`           // sweeps made at this rank (ridge: by the final fit)
	Best    int     `json:"best_sweep"`       // the chain's sweep after which the held-out RMSE was least
	RMSE    float64 `json:"rmse"`             // on the validation ratings, at that number of sweeps
	Seconds float64 `json:"seconds"`
}

// Rank returns the number of columns of the factors, 0 for a model of
// biases alone.
func (m *Model) Rank() int {
	if m.L == nil {
		return 0
	}
	_, k := m.L.Dims()
	return k
}

// Known reports whether the training ratings had the user and the item.
func (m *Model) Known(user, item int64) (knownUser, knownItem bool) {
	_, knownUser = m.Users.Index(user)
	_, knownItem = m.Items.Index(item)
	return knownUser, knownItem
}

// Predict returns the model's prediction of the rating of item by user.
func (m *Model) Predict(user, item int64) float64 {
	u, okU := m.Users.Index(user)
	i, okI := m.Items.Index(item)
	return m.predict(u, i, okU, okI)
}

// predict is Predict by indices, ok telling which are known. A model of
// implicit feedback alone predicts the lists' score (0 for an unseen id).
func (m *Model) predict(u, i int, okU, okI bool) float64 {
	if m.Info.Method == MethodImplicit {
		if !okU || !okI || m.Lists == nil {
			return 0
		}
		return dot(m.Lists.P.RawRowView(u), m.Lists.Q.RawRowView(i))
	}
	p := m.Mean
	if okU {
		p += m.UserBias[u]
	}
	if okI {
		p += m.ItemBias[i]
	}
	if okU && okI && m.L != nil {
		p += dot(m.L.RawRowView(u), m.R.RawRowView(i))
	}
	return min(max(p, m.Min), m.Max)
}

// PredictAll returns the predictions for the pairs (users[k], items[k]),
// in dst when it has room. It panics if users and items differ in length,
// as a pair is one of each.
func (m *Model) PredictAll(users, items []int64, dst []float64) []float64 {
	if len(users) != len(items) {
		panic(fmt.Sprintf("recommend: PredictAll of %d users and %d items", len(users), len(items)))
	}
	if cap(dst) < len(users) {
		dst = make([]float64, len(users))
	}
	dst = dst[:len(users)]
	m.predictAll(users, items, dst)
	return dst
}

// predictAll sets dst[k] to Predict(users[k], items[k]), blocks of pairs
// on the cores, and returns how many pairs have a user or an item the
// model has not seen.
func (m *Model) predictAll(users, items []int64, dst []float64) int {
	const block = 1 << 14
	blocks := (len(dst) + block - 1) / block
	if blocks == 0 {
		return 0
	}
	ux, ix := m.Users.indexer(len(dst)), m.Items.indexer(len(dst))
	unseen := make([]int, blocks)
	par.Do(runtime.GOMAXPROCS(0), blocks, func(b int) {
		for k := b * block; k < min(len(dst), (b+1)*block); k++ {
			u, okU := ux.index(users[k])
			i, okI := ix.index(items[k])
			if !okU || !okI {
				unseen[b]++
			}
			dst[k] = m.predict(u, i, okU, okI)
		}
	})
	n := 0
	for _, c := range unseen {
		n += c
	}
	return n
}

// Errors are the prediction errors of a model on a set of ratings.
type Errors struct {
	RMSE, MAE float64
	N         int // ratings
	Unseen    int // of them, with a user or an item the model has not seen
}

// Evaluate returns the errors of the model's predictions on the ratings.
func (m *Model) Evaluate(test Ratings) (Errors, error) {
	e, _, err := m.EvaluatePredictions(test, nil)
	return e, err
}

// EvaluatePredictions is Evaluate that also returns the predictions the
// errors are of, PredictAll's, in dst when it has room (not test.Values,
// which the errors read after the predictions are made).
func (m *Model) EvaluatePredictions(test Ratings, dst []float64) (Errors, []float64, error) {
	if err := test.check("test"); err != nil {
		return Errors{}, nil, err
	}
	if cap(dst) < test.Len() {
		dst = make([]float64, test.Len())
	}
	dst = dst[:test.Len()]
	e := Errors{N: test.Len(), Unseen: m.predictAll(test.Users, test.Items, dst)}
	var sq, ab float64
	for k, v := range test.Values {
		r := dst[k] - v
		sq += r * r
		ab += math.Abs(r)
	}
	if e.N > 0 {
		e.RMSE, e.MAE = math.Sqrt(sq/float64(e.N)), ab/float64(e.N)
	}
	return e, dst, nil
}
