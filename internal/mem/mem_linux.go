//go:build linux

package mem

import (
	"syscall"
	"unsafe"
)

const hugePage = 2 << 20

// adviseHuge advises the kernel to back the 2 MB pages that lie entirely
// within s with transparent huge pages (madvise MADV_HUGEPAGE). Pages the
// program has not touched yet are then faulted in as huge pages. Errors are
// ignored: the advice only affects speed.
func adviseHuge[T any](s []T) {
	var zero T
	size := uintptr(len(s)) * unsafe.Sizeof(zero)
	start := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	lo := (start + hugePage - 1) &^ (hugePage - 1)
	hi := (start + size) &^ (hugePage - 1)
	if hi <= lo {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), size)
	syscall.Madvise(b[lo-start:hi-start], 14 /* MADV_HUGEPAGE */)
}
