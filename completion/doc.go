// Package completion recovers a low-rank matrix from some or all of its
// entries, a fraction of them arbitrary outliers: matrix completion and
// robust PCA. Its operator, Entries, holds the positions observed; its
// loss, TrimmedL2, least squares without the residuals far beyond their
// row's and column's, fitted by ScaledGD; its Solve, the policy around the
// fits: the rank and a ridge penalty chosen on entries held out, other
// starts for a fit that is not exact, the polish of robust PCA.
// SolveSampled fits a matrix too large for an Entries (a whole video).
//
// The fits themselves are package scaledsm's (the root), whose Solve makes
// one fit of any operator; docs/completion.md measures the policy.
package completion

import (
	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/obs"
)

// observations returns the problem's observations.
func observations(p scaledsm.Problem) obs.Obs { return obs.Obs{F64: p.Y, F32: p.Y32} }
