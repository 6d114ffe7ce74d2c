//go:build !linux

package mem

func adviseHuge[T any](s []T) {}
