//go:build !unix

package bench

import "os"

// childRSSMB returns 0: this system does not give a child's peak memory.
func childRSSMB(*os.ProcessState) float64 { return 0 }
