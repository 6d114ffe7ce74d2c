//go:build amd64 && !purego

package kernel

import "unsafe"

const canPrefetch = true

// prefetchRows issues PREFETCHT0 for every 64 bytes of the row at base +
// j·stride from its first byte to its byte last, and for that byte, for
// each j in idx.
//
//go:noescape
func prefetchRows(base unsafe.Pointer, idx []int32, stride int, last int)

// prefetchRows16 is prefetchRows for 2-byte offsets.
//
//go:noescape
func prefetchRows16(base unsafe.Pointer, idx []uint16, stride int, last int)

// prefetchLine issues PREFETCHT0 for the line of p.
//
//go:noescape
func prefetchLine(p unsafe.Pointer)
