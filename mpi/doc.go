// Package mpi joins the processes that mpirun starts into the ranks of a
// data-parallel solve: World returns a ranks.Reducer over MPI_COMM_WORLD
// (Open MPI through cgo, with the mpi tag), or nil, the single-rank solve,
// in the default build, which has no cgo: the same program runs either way.
//
// One goroutine locked to the OS thread that initialized MPI makes every
// MPI call (MPI_THREAD_FUNNELED); only float64 slices, which hold no Go
// pointers, go to C. OMPI_MCA_opal_signal is set empty so that Open MPI
// leaves SIGSEGV, SIGBUS, SIGFPE and SIGABRT to the Go runtime. Sum is
// MPI_Reduce then MPI_Bcast, not MPI_Allreduce, which may add in another
// order on each rank: every rank must get the same bits. docs/scale.md has
// the faults and why this is not a binding such as gompi.
package mpi
