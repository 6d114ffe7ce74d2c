package kernel

import (
	"slices"
	"testing"
)

// TestPrefetchRows checks that the prefetch hint changes no value, at
// every row of a matrix and for widths past the stride, with offsets in 4
// bytes and in 2, and that it returns for an empty matrix or list.
func TestPrefetchRows(t *testing.T) {
	const n, ld = 50, 7
	x := make([]float64, n*ld)
	for k := range x {
		x[k] = float64(k)
	}
	want := slices.Clone(x)
	idx := make([]int32, 0, 2*n)
	for j := range n {
		idx = append(idx, int32(n-1-j), int32(j))
	}
	for _, width := range []int{0, 1, ld - 1, ld} {
		PrefetchRows(x, idx, ld, width)
	}
	idx16 := make([]uint16, len(idx))
	for e, j := range idx {
		idx16[e] = uint16(j)
	}
	for _, width := range []int{0, 1, ld - 1, ld} {
		PrefetchRows16(x, idx16, ld, width)
	}
	PrefetchRows(nil, idx, ld, ld)
	PrefetchRows(x, nil, ld, ld)
	PrefetchRows16(nil, idx16, ld, ld)
	PrefetchRows16(x, nil, ld, ld)
	if !slices.Equal(x, want) {
		t.Fatal("PrefetchRows changed the matrix")
	}
}

// TestPrefetchAt checks that the hint changes no value and is ignored
// outside the slice (the pass asks a few rows ahead, past the last row).
func TestPrefetchAt(t *testing.T) {
	x := []int32{3, 1, 4, 1, 5}
	for _, k := range []int{-1, 0, 2, 4, 5, 1 << 40} {
		PrefetchAt(x, k)
	}
	PrefetchAt([]float32(nil), 0)
	if !slices.Equal(x, []int32{3, 1, 4, 1, 5}) {
		t.Fatal("PrefetchAt changed the slice")
	}
}
