//go:build mpi

package mpi

/*
#cgo pkg-config: ompi-c
#include <stdlib.h>
#include <mpi.h>

static int init_funneled(int *provided) {
	return MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, provided);
}
static int world_rank(int *r) { return MPI_Comm_rank(MPI_COMM_WORLD, r); }
static int world_size(int *s) { return MPI_Comm_size(MPI_COMM_WORLD, s); }
static int gather_doubles(double *all, double *x, int n) {
	return MPI_Allgather(x, n, MPI_DOUBLE, all, n, MPI_DOUBLE, MPI_COMM_WORLD);
}
static int sum_doubles(double *x, int n, int rank) {
	// The receive buffer counts at the root only.
	int err = MPI_Reduce(rank == 0 ? MPI_IN_PLACE : x, x, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (err != MPI_SUCCESS) return err;
	return MPI_Bcast(x, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}
static int bcast_doubles(double *x, int n) { return MPI_Bcast(x, n, MPI_DOUBLE, 0, MPI_COMM_WORLD); }
static int alltoall_counts(int *send, int *recv) {
	return MPI_Alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, MPI_COMM_WORLD);
}
static int alltoallv_bytes(char *send, int *scounts, int *sdispls, char *recv, int *rcounts, int *rdispls) {
	return MPI_Alltoallv(send, scounts, sdispls, MPI_BYTE, recv, rcounts, rdispls, MPI_BYTE, MPI_COMM_WORLD);
}
static int abort_world(int code) { return MPI_Abort(MPI_COMM_WORLD, code); }
static int finalize(void) { return MPI_Finalize(); }
*/
import "C"

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"sync"
	"unsafe"

	"github.com/scaledsm/scaledsm/ranks"
)

// Enabled reports whether the package was built with the mpi tag.
const Enabled = true

// comm is MPI_COMM_WORLD, served by one goroutine locked to the thread
// that initialized MPI.
type comm struct {
	rank, size int
	calls      chan func()
}

var (
	once  sync.Once
	world *comm
	err0  error
)

// World initializes MPI (MPI_THREAD_FUNNELED) on first use and returns the
// job's ranks, or nil when the job has one rank, which then solves alone
// exactly as without MPI.
func World() (ranks.Reducer, error) {
	once.Do(start)
	if err0 != nil {
		return nil, err0
	}
	if world.size == 1 {
		return nil, nil
	}
	return world, nil
}

// start launches the goroutine that owns MPI and initializes it there.
func start() {
	ready := make(chan struct{})
	go func() {
		runtime.LockOSThread() // for good: MPI lives on this thread
		// Open MPI must not catch the signals the Go runtime owns.
		os.Setenv("OMPI_MCA_opal_signal", "")
		var provided C.int
		if rc := C.init_funneled(&provided); rc != C.MPI_SUCCESS {
			err0 = fmt.Errorf("mpi: MPI_Init_thread failed (error %d)", int(rc))
			close(ready)
			return
		}
		if provided < C.MPI_THREAD_FUNNELED {
			err0 = fmt.Errorf("mpi: MPI provides thread level %d, below MPI_THREAD_FUNNELED", int(provided))
			close(ready)
			return
		}
		var r, s C.int
		C.world_rank(&r)
		C.world_size(&s)
		world = &comm{rank: int(r), size: int(s), calls: make(chan func())}
		close(ready)
		for f := range world.calls {
			f()
		}
	}()
	<-ready
}

// do runs f on the MPI thread and waits for it.
func (c *comm) do(f func() C.int) {
	done := make(chan C.int)
	c.calls <- func() { done <- f() }
	if rc := <-done; rc != C.MPI_SUCCESS {
		// MPI's default handler aborts first; this is the fallback.
		fmt.Fprintf(os.Stderr, "scaledsm: rank %d: MPI error %d\n", c.rank, int(rc))
		Abort(1)
	}
}

func (c *comm) Rank() int { return c.rank }
func (c *comm) Size() int { return c.size }

// Sum reduces x to rank 0 and broadcasts the sum, the same bits on every
// rank.
func (c *comm) Sum(x []float64) {
	if len(x) == 0 {
		return
	}
	c.do(func() C.int {
		return C.sum_doubles((*C.double)(unsafe.Pointer(&x[0])), C.int(len(x)), C.int(c.rank))
	})
}

// Gather gathers every rank's x into all, in rank order.
func (c *comm) Gather(all, x []float64) {
	if len(x) == 0 {
		return
	}
	if len(all) != c.size*len(x) {
		fmt.Fprintf(os.Stderr, "scaledsm: rank %d: mpi Gather into %d values of %d ranks' %d\n", c.rank, len(all), c.size, len(x))
		Abort(1)
	}
	c.do(func() C.int {
		return C.gather_doubles((*C.double)(unsafe.Pointer(&all[0])), (*C.double)(unsafe.Pointer(&x[0])), C.int(len(x)))
	})
}

// Broadcast sets x to rank 0's x on every rank.
func (c *comm) Broadcast(x []float64) {
	if len(x) == 0 {
		return
	}
	c.do(func() C.int { return C.bcast_doubles((*C.double)(unsafe.Pointer(&x[0])), C.int(len(x))) })
}

// Exchange sends send[r] to rank r and returns what each rank sent this
// one (MPI_Alltoall of the sizes, then MPI_Alltoallv of the bytes).
func (c *comm) Exchange(send [][]byte) [][]byte {
	if len(send) != c.size {
		fmt.Fprintf(os.Stderr, "scaledsm: rank %d: mpi Exchange of %d messages among %d ranks\n", c.rank, len(send), c.size)
		Abort(1)
	}
	ints := func(n int) []C.int { return make([]C.int, n) }
	scount, sdispl, rcount, rdispl := ints(c.size), ints(c.size), ints(c.size), ints(c.size)
	var out []byte
	for r, m := range send {
		if len(out)+len(m) > math.MaxInt32 {
			fmt.Fprintf(os.Stderr, "scaledsm: rank %d: mpi Exchange of more than 2 GB\n", c.rank)
			Abort(1)
		}
		scount[r], sdispl[r] = C.int(len(m)), C.int(len(out))
		out = append(out, m...)
	}
	c.do(func() C.int { return C.alltoall_counts(&scount[0], &rcount[0]) })
	total := 0
	for r := range rcount {
		rdispl[r] = C.int(total)
		total += int(rcount[r])
	}
	in := make([]byte, total+1) // +1: a valid pointer when nothing comes
	out = append(out, 0)
	c.do(func() C.int {
		return C.alltoallv_bytes((*C.char)(unsafe.Pointer(&out[0])), &scount[0], &sdispl[0],
			(*C.char)(unsafe.Pointer(&in[0])), &rcount[0], &rdispl[0])
	})
	got := make([][]byte, c.size)
	for r := range got {
		got[r] = in[rdispl[r] : rdispl[r]+rcount[r] : rdispl[r]+rcount[r]]
	}
	return got
}

// abort ends the job; it runs on the MPI thread.
func (c *comm) abort(code int) {
	C.abort_world(C.int(code))
	os.Exit(code)
}

// Finalize ends MPI, once every rank is done; nothing when MPI was never
// started.
func Finalize() {
	if world == nil {
		return
	}
	world.do(func() C.int { return C.finalize() })
}

// Abort ends every rank of the job with the exit code (MPI_Abort); before
// MPI is started, this process only.
func Abort(code int) {
	if world == nil {
		os.Exit(code)
	}
	world.calls <- func() { world.abort(code) }
	select {} // the process ends on the MPI thread
}
