package dataio

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"
)

// benchFile returns an array of 8 million values (64 MB as float64) as a
// .npy file of the given dtype and order.
func benchFile(b *testing.B, dtype string, fortran bool, shape []int) ([]byte, int) {
	n := Header{Shape: shape}.Len()
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]float64, n)
	for i := range data {
		data[i] = rng.NormFloat64()
	}
	if fortran {
		return fortranFile(b, dtype, shape, data), n
	}
	var buf bytes.Buffer
	write := WriteFloat64
	if dtype == "<f4" {
		write = WriteFloat32
	}
	if err := write(&buf, shape, data); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes(), n
}

func benchmarkRead(b *testing.B, dtype string, fortran bool, shape ...int) {
	if shape == nil {
		shape = []int{2000, 4000}
	}
	file, n := benchFile(b, dtype, fortran, shape)
	dst := make([]float64, n)
	b.SetBytes(int64(8 * n))
	b.ResetTimer()
	for b.Loop() {
		r := bytes.NewReader(file)
		h, err := ReadHeader(r)
		if err != nil {
			b.Fatal(err)
		}
		if err := ReadData(r, h, dst); err != nil {
			b.Fatal(err)
		}
	}
}

// The throughput is of the float64 values produced, 8 bytes each.
func BenchmarkReadC64(b *testing.B)       { benchmarkRead(b, "<f8", false) }
func BenchmarkReadC32(b *testing.B)       { benchmarkRead(b, "<f4", false) }
func BenchmarkReadFortran64(b *testing.B) { benchmarkRead(b, "<f8", true) }
func BenchmarkReadFortran32(b *testing.B) { benchmarkRead(b, "<f4", true) }

// A sensing file, (m, n1, n2), in Fortran order: read at offsets, and
// streamed in file order.
func BenchmarkReadFortran3D(b *testing.B) { benchmarkRead(b, "<f8", true, 2000, 40, 100) }
func BenchmarkReadFortran3DStreamed(b *testing.B) {
	file, n := benchFile(b, "<f8", true, []int{2000, 40, 100})
	dst := make([]float64, n)
	b.SetBytes(int64(8 * n))
	b.ResetTimer()
	for b.Loop() {
		r := struct{ io.Reader }{bytes.NewReader(file)}
		h, err := ReadHeader(r)
		if err != nil {
			b.Fatal(err)
		}
		if err := ReadData(r, h, dst); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWrite64(b *testing.B) {
	data := make([]float64, 2000*4000)
	b.SetBytes(int64(8 * len(data)))
	for b.Loop() {
		if err := WriteFloat64(io.Discard, []int{2000, 4000}, data); err != nil {
			b.Fatal(err)
		}
	}
}
