package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/scaledsm/scaledsm/internal/atomicio"
)

// Interrupts. SIGINT and SIGTERM cancel the command's context: a solve
// stops after its current iteration and writes its partial result, and
// every other phase checks the context where it can. A phase that does
// not return within graceWait of the signal (drawing a large problem, a
// long iteration) is not waited for: the process removes its temporary
// files and exits, 130 for SIGINT and 143 for SIGTERM, saying which phase
// it ended, with nothing written. A second signal ends it at once.
const graceWait = 700 * time.Millisecond

var (
	// signalled is the number of the signal that stopped the command, 0
	// while none has.
	signalled atomic.Int32
	// phase names what the command is doing, for the message of a forced
	// exit.
	phase atomic.Pointer[string]
	// rootCtx is the context of the running command, cancelled by a
	// signal.
	rootMu  sync.Mutex
	rootCtx = context.Background()
)

// writingPhase is the phase of writing a command's results.
const writingPhase = "writing the results"

// setPhase records what the command is doing.
func setPhase(p string) { phase.Store(&p) }

// interruptContext returns the context that a signal cancels, and a stop
// function kept for the callers' symmetry.
func interruptContext() (context.Context, func()) {
	rootMu.Lock()
	defer rootMu.Unlock()
	return rootCtx, func() {}
}

// interruptCode returns the exit status of a command stopped by the
// signal caught: 128 plus its number (130 for SIGINT, 143 for SIGTERM).
func interruptCode() int {
	if s := signalled.Load(); s != 0 {
		return 128 + int(s)
	}
	return exitInterrupted
}

// catchSignals arms the handler for one command, named name, whose
// forced exit writes to stderr; the returned function disarms it.
func catchSignals(name string, stderr io.Writer) func() {
	ctx, cancel := context.WithCancel(context.Background())
	rootMu.Lock()
	rootCtx = ctx
	rootMu.Unlock()
	signalled.Store(0)
	setPhase("starting")
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var timer <-chan time.Time
		for {
			select {
			case <-done:
				return
			case s := <-ch:
				if signalled.Load() != 0 {
					forceExit(name, stderr)
				}
				if n, ok := s.(syscall.Signal); ok {
					signalled.Store(int32(n))
				}
				cancel()
				timer = time.After(graceWait)
			case <-timer:
				forceExit(name, stderr)
			}
		}
	})
	return func() {
		signal.Stop(ch)
		close(done)
		wg.Wait()
		cancel()
	}
}

// forceExit ends the process after a signal: the temporary files go, and
// one line says what was stopped.
func forceExit(name string, stderr io.Writer) {
	atomicio.RemoveTemps()
	what := "working"
	if p := phase.Load(); p != nil {
		what = *p
	}
	kept := "nothing written"
	if what == writingPhase {
		kept = "each output holds its earlier files or all the new ones"
	}
	fmt.Fprintf(stderr, "scaledsm %s: interrupted while %s; %s\n", name, what, kept)
	os.Exit(interruptCode())
}
