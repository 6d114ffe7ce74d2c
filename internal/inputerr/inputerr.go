// Package inputerr holds the one type of invalid-input error that the
// solver (package scaledsm) and the recommender (package recommend) return,
// each under its own name: scaledsm.InputError and recommend.InputError are
// aliases of Error, so errors.As with either finds both.
package inputerr

import "fmt"

// Error is an invalid input: a field of a problem or of settings, an
// argument of a constructor, a setting of a data recipe. It names the
// input, its value when it has a short one, and the reason, so that a
// command line can point at the flag that set it.
type Error struct {
	Input  string // the input's name: "rank", "y", "ratings", "validation", ...
	Value  any    // its value, or nil for inputs too long to print (vectors, matrices)
	Reason string // what is wrong, as in "must lie in [1, 5]"
	// Source is the package that found it, the message's prefix
	// ("scaledsm" when empty).
	Source string
}

// New returns the Error of input with the value and the reason the format
// and its arguments give (the solver's; the recommender sets Source).
func New(input string, value any, format string, args ...any) *Error {
	return &Error{Input: input, Value: value, Reason: fmt.Sprintf(format, args...)}
}

// Error returns "<source>: <input> <value>: <reason>".
func (e *Error) Error() string {
	src := e.Source
	if src == "" {
		src = "scaledsm"
	}
	if e.Value == nil {
		return fmt.Sprintf("%s: %s: %s", src, e.Input, e.Reason)
	}
	return fmt.Sprintf("%s: %s %v: %s", src, e.Input, e.Value, e.Reason)
}
