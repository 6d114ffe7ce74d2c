package scaledsm

import (
	"github.com/scaledsm/scaledsm/internal/inputerr"
)

// An InputError is an invalid input: a field of a Problem or Settings, an
// argument of a constructor, or a setting of the data recipe (package
// synth). It names the input, its value when it has a short one, and the
// reason, so that a command line can point at the flag that set it. It is
// the type of recommend.InputError too.
type InputError = inputerr.Error

// inputError returns an *InputError.
func inputError(input string, value any, format string, args ...any) error {
	return inputerr.New(input, value, format, args...)
}
