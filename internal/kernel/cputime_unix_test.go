//go:build unix

package kernel

import (
	"syscall"
	"time"
)

// cpuTime returns the user+system CPU time of the process so far. On a
// shared machine, work per CPU second is a steadier measure of a kernel
// than work per wall-clock second, which counts the time other processes
// hold the cores.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
