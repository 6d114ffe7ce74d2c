//go:build !amd64 || purego

package kernel

import "unsafe"

const canPrefetch = false

func prefetchRows(base unsafe.Pointer, idx []int32, stride int, last int) {}

func prefetchRows16(base unsafe.Pointer, idx []uint16, stride int, last int) {}

func prefetchLine(p unsafe.Pointer) {}
