//go:build !mpi

package mpi

import (
	"os"

	"github.com/scaledsm/scaledsm/ranks"
)

// Enabled reports whether the package was built with the mpi tag.
const Enabled = false

// World returns nil without the mpi tag: the process is the only rank.
func World() (ranks.Reducer, error) { return nil, nil }

// Finalize ends MPI; without the mpi tag it does nothing.
func Finalize() {}

// Abort ends the process with the exit code (every rank of the job, with
// the mpi tag).
func Abort(code int) { os.Exit(code) }
