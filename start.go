package scaledsm

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/scaledsm/scaledsm/internal/reduce"
	"gonum.org/v1/gonum/mat"
)

// Start chooses the initialization Solve uses when Settings.Init is nil.
type Start int

const (
	// SpectralStart, the zero value, is the truncated spectral
	// initialization of Section 4 (see Problem.Spectral and Truncation).
	SpectralStart Start = iota
	// RandomStart draws small Gaussian factors (see Random): the start the
	// paper names as its next step, which needs no spectral estimate at
	// the fitted rank and, with damping, suits an over-specified rank.
	RandomStart
	// ConvexStart truncates to the rank the estimate of robust matrix
	// completion's convex relaxation, solved roughly, of an operator that
	// offers one (package completion's Entries): for the entry models'
	// small matrices, where no spectral start reaches the basin of X*.
	// completion.Solve tries it on its own when the fits from the
	// spectral starts are not exact.
	ConvexStart
)

var startNames = [...]string{SpectralStart: "spectral", RandomStart: "random", ConvexStart: "convex"}

// String returns the initialization's name as the command line spells it.
func (s Start) String() string {
	if s >= 0 && int(s) < len(startNames) {
		return startNames[s]
	}
	return fmt.Sprintf("Start(%d)", int(s))
}

func (s Start) valid() bool { return s >= SpectralStart && s <= ConvexStart }

// defaultInitScale is the relative size of a random start when
// Settings.InitScale is 0.
const defaultInitScale = 1e-3

// initScale is the relative size of the settings' random start.
func (s Settings) initScale() float64 { return cmp.Or(s.InitScale, defaultInitScale) }

// random returns small random factors of rank p.Rank: Gaussian entries,
// scaled so that ||L||_F = ||R||_F = sqrt(scale·σ̂) (||L||_F² = scale·σ̂ for
// a symmetric operator), where σ̂ is the top singular value of the
// operator's spectral estimate of X* from the observations that trim keeps
// (the whole problem's, on ranks, so that every rank draws the same
// factors): the data's scale, so that ||L Rᵀ||_F <= scale·σ̂. The draw is
// fixed by the seed.
func random(p Problem, trim Truncation, scale float64, seed uint64) (Factors, error) {
	op, y, r, d := p.Op, p.observations(), p.Rank, reduce.Over(p.Reducer)
	_, n1, n2 := op.Dims()
	top, err := spectral(op, y, 1, trim, d)
	if err != nil {
		return Factors{}, err
	}
	sigma := mat.Norm(top.L, 2) * mat.Norm(top.right(), 2)
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return Factors{}, inputError("y", nil, "the spectral estimate is %v, so the data gives no scale for a random start", sigma)
	}
	rng := rand.New(rand.NewPCG(seed, 0x7261_6e64_6f6d)) // "random"
	norm := math.Sqrt(scale * sigma)
	f := Factors{L: gaussian(rng, n1, r, norm)}
	if !op.Symmetric() {
		f.R = gaussian(rng, n2, r, norm)
	}
	return f, nil
}

// gaussian returns an n×r matrix of Gaussian entries scaled to Frobenius
// norm norm.
func gaussian(rng *rand.Rand, n, r int, norm float64) *mat.Dense {
	g := mat.NewDense(n, r, nil)
	raw := g.RawMatrix().Data
	for i := range raw {
		raw[i] = rng.NormFloat64()
	}
	g.Scale(norm/mat.Norm(g, 2), g)
	return g
}

// A convexOperator has a convex relaxation whose estimate of rank r is
// ConvexStart (package completion's entries).
type convexOperator interface {
	Convex(ctx context.Context, y []float64, r int) (Factors, error)
}

// Initial returns the starting point Solve uses for a problem of known rank:
// Settings.Init, or the initialization Settings.Start names (spectral with
// Settings.Truncation, Random with Settings.InitScale and Settings.Seed, or the
// convex start of an operator that has one, which ctx stops).
func Initial(ctx context.Context, p Problem, s Settings) (Factors, error) {
	switch {
	case s.Init != nil:
		return *s.Init, nil
	case s.Start == RandomStart:
		scale := s.initScale()
		if _, n1, n2 := p.Op.Dims(); p.Rank < 1 || p.Rank > min(n1, n2) {
			return Factors{}, inputError("rank", p.Rank, "must lie in [1, min(n1, n2)] = [1, %d]", min(n1, n2))
		}
		if !(scale > 0) || math.IsInf(scale, 0) {
			return Factors{}, inputError("init scale", scale, "must be positive and finite")
		}
		return random(p, s.Truncation, scale, s.Seed)
	case s.Start == ConvexStart:
		c, ok := p.Op.(convexOperator)
		if !ok || p.Reducer != nil {
			return Factors{}, inputError("init", "convex", "is for the entry models (completion, robust PCA) on one process")
		}
		return c.Convex(ctx, p.observations().Float64s(), p.Rank)
	}
	return p.Spectral(s.Truncation)
}
