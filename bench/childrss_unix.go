//go:build unix

package bench

import (
	"os"
	"runtime"
	"syscall"
)

// childRSSMB returns the maximum resident set of a finished process, in
// MB, or 0 where the system does not say.
func childRSSMB(ps *os.ProcessState) float64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return float64(ru.Maxrss) / (1 << 20) // bytes
	}
	return float64(ru.Maxrss) / 1024 // KB
}
