//go:build linux

package kernel

import (
	"os"
	"syscall"
	"unsafe"
)

// hugeAlloc returns n float64 and n float32 elements in anonymous mappings
// advised to use transparent huge pages (2 MB), if SCALEDSM_BENCH_HUGEPAGES
// is set; otherwise nil, and the benchmarks use the Go heap (4 KB pages
// where transparent huge pages are in madvise mode).
func hugeAlloc(n int) ([]float64, []float32) {
	if os.Getenv("SCALEDSM_BENCH_HUGEPAGES") == "" {
		return nil, nil
	}
	m := func(size int) []byte {
		b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
		if err != nil {
			panic(err)
		}
		if err := syscall.Madvise(b, 14 /* MADV_HUGEPAGE */); err != nil {
			panic(err)
		}
		return b
	}
	b64, b32 := m(8*n), m(4*n)
	return unsafe.Slice((*float64)(unsafe.Pointer(&b64[0])), n), unsafe.Slice((*float32)(unsafe.Pointer(&b32[0])), n)
}
