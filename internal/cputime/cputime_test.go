package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestProcess spins for 50 ms of wall time: the CPU time grows by about as
// much on a unix system (at least 1 ms, whatever the load).
func TestProcess(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no CPU time here")
	}
	c0 := Process()
	x := 0
	for t0 := time.Now(); time.Since(t0) < 50*time.Millisecond; {
		x++
	}
	if d := Process() - c0; d < time.Millisecond {
		t.Errorf("50 ms of spinning took %v of CPU time (%d loops)", d, x)
	}
}
