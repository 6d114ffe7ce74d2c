package scaledsm

import "fmt"

// An InputError is an invalid input: a field of a Problem or Settings, an
// argument of a constructor, or a setting of the data recipe (package
// synth). It names the input, its value when it has a short one, and the
// reason, so that a command line can point at the flag that set it.
type InputError struct {
	Input  string // the input's name: "rank", "y", "truth", "tol", "kappa", ...
	Value  any    // its value, or nil for inputs too long to print (vectors, matrices)
	Reason string // what is wrong, as in "must lie in [1, 5]"
}

// Error returns "scaledsm: <input> <value>: <reason>".
func (e *InputError) Error() string {
	if e.Value == nil {
		return fmt.Sprintf("scaledsm: %s: %s", e.Input, e.Reason)
	}
	return fmt.Sprintf("scaledsm: %s %v: %s", e.Input, e.Value, e.Reason)
}

// inputError returns an *InputError.
func inputError(input string, value any, format string, args ...any) error {
	return &InputError{Input: input, Value: value, Reason: fmt.Sprintf(format, args...)}
}
