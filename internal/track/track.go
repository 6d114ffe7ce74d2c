// Package track is how a loss that keeps state along a run (package
// completion's trimmed least squares) meets the solver's run loop. The
// solver instantiates these interfaces with its own types (its Problem,
// Settings, *Evaluation, Factors and Iteration); they live here, inside
// the module, because no model outside it needs them (TrimmedL2's Track
// is exported only to satisfy them).
package track

// Tracked is a loss that keeps state along each run that changes it from
// one pass to the next. The solver's loss (scaledsm.Loss) it also is gives
// through its Base the weights and the gradient; its value is its
// Tracker's, and since that moves with the state, the solver fits it with
// steps that do not rest on f(X*): a constant or geometric one.
type Tracked[P, S, T any] interface {
	// Track returns the loss's state for one run of the problem p with
	// the settings s.
	Track(p P, s S) (T, error)
}

// A Tracker is a Tracked loss's state along one run, over evaluations E,
// factors F and iteration records I. The run calls Start before its first
// pass, Pass after each pass, Intervene before each step, and Step after
// it.
type Tracker[E, F, I any] interface {
	// Start readies e for the first pass from the run's initialization:
	// it may set e's State, and give e a residuals' buffer (m values)
	// when the operator evaluates without one and was given none. scale
	// is the observations' (their fit scale, over all the ranks).
	Start(e E, init F, scale float64) error
	// Pass returns the loss at the pass just made into e and readies e
	// for the next one.
	Pass(e E) float64
	// Intervene may take the iteration whose record is it, the trace so
	// far before it, in place of the step: it moves the factors f in place
	// and returns true, and the run records the iteration with no step.
	Intervene(it I, trace []I, f F) bool
	// Step is called after each step, with the factors moved.
	Step(f F)
}
