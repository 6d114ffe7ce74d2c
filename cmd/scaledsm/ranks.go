package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/mem"
	"github.com/scaledsm/scaledsm/internal/reduce"
	"github.com/scaledsm/scaledsm/mpi"
	"github.com/scaledsm/scaledsm/ranks"
	"github.com/scaledsm/scaledsm/report"
)

// world is the ranks of an mpirun job (package mpi, built with the mpi
// tag), nil when the process solves alone: "mpirun -np P scaledsm solve
// ..." solves one problem on P ranks, each holding its shard of the
// measurements, rank 0 printing and writing the results.
var world ranks.Reducer

// settled is set once the ranks have finished their solve together: from
// then on a rank's error (an outcome every rank shares, or rank 0's failure
// to write) ends it alone, so that rank 0 is not killed while it writes.
var settled bool

// rank0 reports whether this process prints and writes the results: it
// solves alone, or it is rank 0.
func rank0() bool { return world == nil || world.Rank() == 0 }

// size returns the number of ranks.
func size() int {
	if world == nil {
		return 1
	}
	return world.Size()
}

// mainRanks runs the command line on this process's rank and returns the
// exit code; a rank that fails before the ranks have settled ends the whole
// job with its code (MPI_Abort), so that no rank waits for it.
func mainRanks(args []string) int {
	if n := os.Getenv("OMPI_COMM_WORLD_SIZE"); !mpi.Enabled && n != "" && n != "1" {
		// Each rank would solve the whole problem alone.
		fmt.Fprintf(os.Stderr, "scaledsm: started by mpirun on %s ranks, but built without MPI: build with go build -tags mpi\n", n)
		return exitBadInput
	}
	red, err := mpi.World()
	if err != nil {
		fmt.Fprintf(os.Stderr, "scaledsm: %v\n", err)
		return exitFailed
	}
	if red != nil {
		world = &timedReducer{Reducer: red}
	}
	stdout, stderr := io.Writer(os.Stdout), io.Writer(os.Stderr)
	if world != nil && world.Rank() != 0 {
		stdout = io.Discard
		stderr = &prefixWriter{w: os.Stderr, prefix: fmt.Sprintf("[rank %d of %d] ", world.Rank(), world.Size())}
	}
	code := run(args, stdout, stderr)
	if world != nil && code != exitOK && !settled {
		mpi.Abort(code)
	}
	mpi.Finalize()
	return code
}

// checkRanks refuses the commands that do not run on several ranks.
func checkRanks(name string) error {
	if world == nil || name == "solve" {
		return nil
	}
	return fmt.Errorf("runs on one process; of the commands only solve runs on the %d ranks of mpirun", world.Size())
}

// rankFigures fills in the summary's figures of each rank, in rank order:
// the peak resident set size and the bytes of its shard of the data (the
// operator's and the observations), in MB, and the seconds the solve spent
// in collectives; and the collectives per iteration and their payload.
// Alone it does nothing.
func rankFigures(sum *report.Summary, p scaledsm.Problem, iterations int) {
	t, ok := world.(*timedReducer)
	if !ok {
		return
	}
	calls, bytes, wait := t.calls, t.bytes, t.wait.Seconds()
	mine := []float64{-1, float64(8 * len(p.Y)), wait}
	if b, ok := mem.PeakRSS(); ok {
		mine[0] = float64(b)
	}
	if op, ok := p.Op.(interface{ Bytes() int64 }); ok {
		mine[1] += float64(op.Bytes())
	}
	all := make([]float64, 3*world.Size())
	world.Gather(all, mine)
	sum.Ranks = world.Size()
	for k := 0; k < len(all); k += 3 {
		sum.RankPeakMB = append(sum.RankPeakMB, all[k]/1e6)
		sum.RankDataMB = append(sum.RankDataMB, all[k+1]/1e6)
		sum.RankCommSeconds = append(sum.RankCommSeconds, all[k+2])
	}
	n := float64(iterations + 1) // the passes made
	sum.CollectivesPerIter = float64(calls) / n
	sum.CollectiveKBPerIter = float64(bytes) / 1e3 / n
}

// timedReducer counts the collectives of a solve, their payload (the
// values each rank contributes) and the time spent in them, waiting for
// the other ranks included.
// The bytes received count what others sent this rank: a Gather's other
// ranks' parts, a Sum's or a Broadcast's values, an Exchange's messages
// (apart, in xbytes).
type timedReducer struct {
	ranks.Reducer
	calls  int
	bytes  int64
	wait   time.Duration
	recv   int64 // bytes received, but in exchanges
	xbytes int64 // bytes received in exchanges
}

// reset zeroes the counts, at the start of the iterations.
func (t *timedReducer) reset() { t.calls, t.bytes, t.wait, t.recv, t.xbytes = 0, 0, 0, 0, 0 }

// resetCollectives zeroes the world's counts of collectives, if any.
func resetCollectives() {
	if t, ok := world.(*timedReducer); ok {
		t.reset()
	}
}

// uncounted runs f, its collectives left out of the world's counts.
func uncounted(f func()) {
	t, ok := world.(*timedReducer)
	if !ok {
		f()
		return
	}
	before := *t
	f()
	*t = before
}

// time runs a collective to which this rank gives n values and in which
// it receives recv bytes.
func (t *timedReducer) time(n int, recv int64, f func()) {
	t0 := time.Now()
	f()
	t.wait += time.Since(t0)
	t.calls++
	t.bytes += 8 * int64(n)
	t.recv += recv
}

func (t *timedReducer) Sum(x []float64) { t.time(len(x), 8*int64(len(x)), func() { t.Reducer.Sum(x) }) }
func (t *timedReducer) Gather(all, x []float64) {
	t.time(len(x), 8*int64(len(all)-len(x)), func() { t.Reducer.Gather(all, x) })
}
func (t *timedReducer) Broadcast(x []float64) {
	t.time(len(x), 8*int64(len(x)), func() { t.Reducer.Broadcast(x) })
}

// Exchange passes the recommender's exchange of ratings on to the ranks
// (package mpi's Reducer is a ranks.Exchanger), its bytes counted as
// eighths of values.
func (t *timedReducer) Exchange(send [][]byte) [][]byte {
	var got [][]byte
	n := 0
	for _, m := range send {
		n += len(m)
	}
	t.time((n+7)/8, 0, func() { got = t.Reducer.(ranks.Exchanger).Exchange(send) })
	for _, m := range got {
		t.xbytes += int64(len(m))
	}
	return got
}

// recommenderFigures fills in the recommender's summary's figures of each
// rank (see report.Recommender), the fit having made the given sweeps.
// Alone it does nothing.
func recommenderFigures(sum *report.Recommender, sweeps int) {
	t, ok := world.(*timedReducer)
	if !ok {
		return
	}
	mine := []float64{-1, t.wait.Seconds(), float64(t.xbytes) / 1e6, float64(t.recv) / 1e3 / float64(max(sweeps, 1))}
	if b, ok := mem.PeakRSS(); ok {
		mine[0] = float64(b) / 1e6
	}
	all := reduce.Gather(t.Reducer, mine)
	sum.Ranks = world.Size()
	for k := 0; k < len(all); k += len(mine) {
		sum.RankPeakMB = append(sum.RankPeakMB, all[k])
		sum.RankCommSeconds = append(sum.RankCommSeconds, all[k+1])
		sum.RankExchangeMB = append(sum.RankExchangeMB, all[k+2])
		sum.RankSweepKB = append(sum.RankSweepKB, all[k+3])
	}
}

// prefixWriter starts every line with a prefix: a rank's messages.
type prefixWriter struct {
	w      io.Writer
	prefix string
	mid    bool // within a line
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		if !p.mid {
			if _, err := io.WriteString(p.w, p.prefix); err != nil {
				return 0, err
			}
		}
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line = b[:i+1]
		}
		if _, err := p.w.Write(line); err != nil {
			return 0, err
		}
		p.mid = line[len(line)-1] != '\n'
		b = b[len(line):]
	}
	return n, nil
}
