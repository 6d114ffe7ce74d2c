//go:build !unix

package main

import "time"

// cpuTime returns 0: the CPU time is not read on this system.
func cpuTime() time.Duration { return 0 }
