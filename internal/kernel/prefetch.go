package kernel

import "unsafe"

// PrefetchRows asks the processor to bring into its caches the rows
// x[j*ld : j*ld+width] for each j in idx, rows that a loop is about to
// gather at random: a hint that never faults and changes no value. It
// does nothing where the platform has no prefetch instruction, or with
// purego.
func PrefetchRows(x []float64, idx []int32, ld, width int) {
	if !canPrefetch || len(x) == 0 || width < 1 {
		return
	}
	prefetchRows(unsafe.Pointer(&x[0]), idx, 8*ld, 8*width-1)
}

// PrefetchRows16 is PrefetchRows for offsets held in 2 bytes each.
func PrefetchRows16(x []float64, idx []uint16, ld, width int) {
	if !canPrefetch || len(x) == 0 || width < 1 {
		return
	}
	prefetchRows16(unsafe.Pointer(&x[0]), idx, 8*ld, 8*width-1)
}

// PrefetchAt asks for the cache line of x[k] ahead of its use, where the
// platform can (a hint: it changes no value). It does nothing when k is
// outside x.
func PrefetchAt[T any](x []T, k int) {
	if canPrefetch && k >= 0 && k < len(x) {
		prefetchLine(unsafe.Pointer(&x[k]))
	}
}
