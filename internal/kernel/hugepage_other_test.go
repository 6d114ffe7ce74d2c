//go:build !linux

package kernel

func hugeAlloc(n int) ([]float64, []float32) { return nil, nil }
