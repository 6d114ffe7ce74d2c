// Package mem allocates the big arrays of the operators' data.
//
// On Linux, Make advises the kernel to back the array with transparent
// huge pages (2 MB instead of 4 KB), which speeds up a streaming read of
// it markedly (the page walks of 4 KB pages cost most under
// virtualization): a pass over the paper's sensing data went from about
// 43 to 34 ms on the 2-core machine this was measured on. Setting the
// environment variable SCALEDSM_HUGEPAGES=0 turns the advice off.
package mem

import "os"

// Make returns a new zeroed slice of n elements, advised to use huge pages
// where the system offers them.
func Make[T any](n int) []T {
	s := make([]T, n)
	if n > 0 && os.Getenv("SCALEDSM_HUGEPAGES") != "0" {
		adviseHuge(s)
	}
	return s
}
