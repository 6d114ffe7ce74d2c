package dataio

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// addSeeds adds the files of testdata/numpy and a few corrupted headers to
// a fuzz target's seed corpus (testdata/fuzz/<target> holds more).
func addSeeds(f *testing.F) {
	entries, err := os.ReadDir("testdata/numpy")
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("testdata/numpy", e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{})
	f.Add([]byte("\x93NUMPY\x01\x00\x04\x00abcd"))
	f.Add(header("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 1, 2), }\n"))
	f.Add(header("{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }\n"))
}

// FuzzReadHeader feeds arbitrary bytes to ReadHeader: it must return a
// header or an error, never panic, and a header it accepts must survive
// being written and read again.
func FuzzReadHeader(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ReadHeader(bytes.NewReader(data))
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if h.HeaderSize() > int64(len(data)) || h.Dtype == "" {
			t.Fatalf("header %+v from %d bytes", h, len(data))
		}
		for _, d := range h.Shape {
			if d < 0 {
				t.Fatalf("negative dimension in %v", h.Shape)
			}
		}
		if strings.ContainsAny(h.Dtype, "'\"") {
			return
		}
		var b bytes.Buffer
		if err := WriteHeader(&b, h); err != nil {
			t.Fatal(err)
		}
		if b.Len()%64 != 0 {
			t.Fatalf("header of %d bytes", b.Len())
		}
		h2, err := ReadHeader(&b)
		if err != nil || h2.Dtype != h.Dtype || !slices.Equal(h2.Shape, h.Shape) || h2.Fortran != h.Fortran {
			t.Fatalf("header %+v written and read back as %+v, %v", h, h2, err)
		}
	})
}

// oracle decodes the data of a float file element by element, the slow
// and obvious way, into row-major order.
func oracle(h Header, data []byte) []float64 {
	size, order, _ := floatKind(h.Dtype)
	n := h.Len()
	out := make([]float64, n)
	idx := make([]int, len(h.Shape))
	for p := range n {
		// Position p of the file holds the element at idx.
		var v float64
		if size == 8 {
			v = math.Float64frombits(order.Uint64(data[8*p:]))
		} else {
			v = float64(math.Float32frombits(order.Uint32(data[4*p:])))
		}
		c := 0
		for k, d := range h.Shape {
			c = c*d + idx[k]
		}
		out[c] = v
		if h.Fortran {
			for k := range idx {
				if idx[k]++; idx[k] < h.Shape[k] {
					break
				}
				idx[k] = 0
			}
		} else {
			for k := len(idx) - 1; k >= 0; k-- {
				if idx[k]++; idx[k] < h.Shape[k] {
					break
				}
				idx[k] = 0
			}
		}
	}
	return out
}

// FuzzReadData reads arbitrary bytes as a whole .npy file: a file whose
// data has exactly the declared size must read as the oracle decodes it;
// a shorter or longer one must be an error; nothing may panic.
func FuzzReadData(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		h, err := ReadHeader(r)
		if err != nil {
			return
		}
		size, _, ok := floatKind(h.Dtype)
		n := h.Len()
		if !ok {
			if err := ReadData(r, h, make([]float64, min(n, 1<<10))); err == nil {
				t.Fatalf("dtype %q read without error", h.Dtype)
			}
			return
		}
		rest := data[h.HeaderSize():]
		need := int64(n) * int64(size)
		if need > int64(len(rest))+1<<20 {
			return // do not allocate far more than the input
		}
		got := make([]float64, n)
		err = ReadData(r, h, got)
		// The same bytes streamed, without io.ReaderAt, must read alike.
		sr := struct{ io.Reader }{bytes.NewReader(data[h.HeaderSize():])}
		got2 := make([]float64, n)
		err2 := ReadData(sr, h, got2)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("read at offsets: %v; streamed: %v", err, err2)
		}
		if err == nil && !slices.EqualFunc(got, got2, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
			t.Fatal("reading at offsets and streaming give different values")
		}
		switch {
		case need == int64(len(rest)):
			if err != nil {
				t.Fatalf("complete file: %v", err)
			}
			want := oracle(h, rest)
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("value %d is %v, want %v", i, got[i], want[i])
				}
			}
		case err == nil:
			t.Fatalf("%d bytes of data for %d declared read without error", len(rest), need)
		}
	})
}

// FuzzReadFile writes arbitrary bytes to a file and reads it with
// ReadFile, which checks the file's size before it allocates: an error
// must name the file; a success must match the oracle.
func FuzzReadFile(f *testing.F) {
	addSeeds(f)
	path := filepath.Join(f.TempDir(), "fuzz.npy")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, shape, err := ReadFile(path)
		if err != nil {
			if !strings.HasPrefix(err.Error(), path+": ") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		h, err := ReadHeader(bytes.NewReader(data))
		if err != nil || !slices.Equal(shape, h.Shape) {
			t.Fatalf("ReadFile accepted what ReadHeader does not: %v", err)
		}
		want := oracle(h, data[h.HeaderSize():])
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("value %d is %v, want %v", i, got[i], want[i])
			}
		}
	})
}

// TestOracle checks the fuzzers' oracle on a file of known content, so
// that a wrong oracle cannot hide a wrong reader.
func TestOracle(t *testing.T) {
	for _, name := range []string{"be_f4_f_2x3x4.npy", "f8_c_2x3x4.npy"} {
		b, err := os.ReadFile(filepath.Join("testdata/numpy", name))
		if err != nil {
			t.Fatal(err)
		}
		h, err := ReadHeader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if got := oracle(h, b[h.HeaderSize():]); !slices.Equal(got, pattern(h.Shape)) {
			t.Errorf("%s: oracle gives %v", name, got)
		}
	}
}
