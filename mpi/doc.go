// Package mpi joins the processes that mpirun starts into the ranks of a
// data-parallel solve: World returns a ranks.Reducer over
// MPI_COMM_WORLD.
//
// Built with the mpi tag it calls Open MPI through cgo (Debian's
// libopenmpi-dev, found by pkg-config as ompi-c); the default build has
// no cgo and no MPI, and World returns nil, the single-rank solve, so the
// same program runs either way.
//
// It is a small cgo file of its own rather than a binding such as
// github.com/sbromberger/gompi: a solve needs five calls (Allgather,
// Reduce and Bcast of float64 slices, Abort, the rank and size), the
// binding would add a module to go.mod for every build, tagged or not, and
// it calls MPI from whichever goroutine calls it, while this package makes
// every MPI call from one goroutine locked to the OS thread that
// initialized MPI, as MPI_THREAD_FUNNELED requires: the collectives are
// requests to that goroutine. Only slices of float64, which hold no Go
// pointers, are passed to C. OMPI_MCA_opal_signal is set empty before
// MPI_Init_thread, so that Open MPI installs no handler for SIGSEGV,
// SIGBUS, SIGFPE or SIGABRT, which the Go runtime owns.
//
// Sum reduces to rank 0 and broadcasts the result (MPI_Reduce, then
// MPI_Bcast) rather than calling MPI_Allreduce, whose algorithms may add
// in a different order on different ranks: every rank must get the same
// bits, or their iterates would drift apart.
//
// Faults: MPI's default error handler ends the job on a failed call; a
// rank that returns an error calls Abort, which ends every rank with its
// exit code; and mpirun ends the job when a rank dies.
package mpi
