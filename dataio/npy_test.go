package dataio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sbinet/npyio/npy"
	"gonum.org/v1/gonum/mat"
)

// patternValue is the value testdata/mknpy.py stores at a row-major
// multi-index: 100i + 10j + k + 0.25 in 3-D, and likewise in 1-D and 2-D.
func patternValue(idx []int) float64 {
	v := 0.25
	for p, i := range idx {
		v += float64(i) * math.Pow(10, float64(len(idx)-1-p))
	}
	return v
}

// pattern returns the values of patternValue over a shape, in row-major
// order.
func pattern(shape []int) []float64 {
	n := Header{Shape: shape}.Len()
	out := make([]float64, n)
	idx := make([]int, len(shape))
	for i := range out {
		out[i] = patternValue(idx)
		for k := len(idx) - 1; k >= 0; k-- {
			idx[k]++
			if idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
	}
	return out
}

// TestReadNumPyFiles reads the files of testdata/numpy, laid out byte for
// byte as NumPy writes them (see testdata/mknpy.py), in every supported
// dtype, byte order, layout and format version.
func TestReadNumPyFiles(t *testing.T) {
	cases := []struct {
		file    string
		dtype   string
		fortran bool
		shape   []int
	}{
		{"f8_c_2x3.npy", "<f8", false, []int{2, 3}},
		{"f8_f_2x3.npy", "<f8", true, []int{2, 3}},
		{"f4_c_2x3.npy", "<f4", false, []int{2, 3}},
		{"f4_f_2x3.npy", "<f4", true, []int{2, 3}},
		{"f8_c_2x3x4.npy", "<f8", false, []int{2, 3, 4}},
		{"f8_f_2x3x4.npy", "<f8", true, []int{2, 3, 4}},
		{"f4_c_2x3x4.npy", "<f4", false, []int{2, 3, 4}},
		{"f4_f_2x3x4.npy", "<f4", true, []int{2, 3, 4}},
		{"be_f8_c_2x3.npy", ">f8", false, []int{2, 3}},
		{"be_f8_f_2x3.npy", ">f8", true, []int{2, 3}},
		{"be_f4_c_2x3.npy", ">f4", false, []int{2, 3}},
		{"be_f4_f_2x3.npy", ">f4", true, []int{2, 3}},
		{"be_f8_c_2x3x4.npy", ">f8", false, []int{2, 3, 4}},
		{"be_f8_f_2x3x4.npy", ">f8", true, []int{2, 3, 4}},
		{"be_f4_c_2x3x4.npy", ">f4", false, []int{2, 3, 4}},
		{"be_f4_f_2x3x4.npy", ">f4", true, []int{2, 3, 4}},
		{"f8_c_5.npy", "<f8", false, []int{5}},
		{"f8_f_5.npy", "<f8", true, []int{5}},
		{"f8_f_4x1.npy", "<f8", true, []int{4, 1}},
		{"f8_c_0x3.npy", "<f8", false, []int{0, 3}},
		{"f8_v2_3x2.npy", "<f8", false, []int{3, 2}},
		{"f8_v3_3x2.npy", "<f8", false, []int{3, 2}},
		{"f8_old_3x2.npy", "<f8", false, []int{3, 2}},
		{"f4_old_f_3.npy", "<f4", true, []int{3}},
	}
	entries, err := os.ReadDir("testdata/numpy")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(cases) {
		t.Errorf("testdata/numpy holds %d files, the table %d", len(entries), len(cases))
	}
	for _, c := range cases {
		path := filepath.Join("testdata/numpy", c.file)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		h, err := ReadHeader(f)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if h.Dtype != c.dtype || h.Fortran != c.fortran || !slices.Equal(h.Shape, c.shape) {
			t.Errorf("%s: header %q fortran=%v shape %v, want %q %v %v", c.file, h.Dtype, h.Fortran, h.Shape, c.dtype, c.fortran, c.shape)
		}
		want := pattern(c.shape)
		got32 := make([]float32, len(want))
		if err := ReadData(f, h, got32); err != nil {
			t.Errorf("%s: float32: %v", c.file, err)
		}
		f.Close()
		got, shape, err := ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if !slices.Equal(shape, c.shape) || !slices.Equal(got, want) {
			t.Errorf("%s: read %v %v, want %v %v", c.file, shape, got, c.shape, want)
		}
		for i, v := range got32 {
			if float64(v) != want[i] {
				t.Errorf("%s: float32 value %d is %v, want %v", c.file, i, v, want[i])
				break
			}
		}
	}
}

// fortranFile returns a .npy file holding the row-major data of the given
// shape in Fortran order, with a header built by hand.
func fortranFile(t testing.TB, dtype string, shape []int, data []float64) []byte {
	t.Helper()
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': True, 'shape': %s, }", dtype, ShapeString(shape))
	pad := 64 - (10+len(dict)+1)%64
	var b bytes.Buffer
	b.WriteString(magic + "\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(dict)+pad+1))
	b.WriteString(dict + strings.Repeat(" ", pad) + "\n")
	// Walk the Fortran order: the first index fastest.
	n := len(data)
	idx := make([]int, len(shape))
	for range n {
		c := 0
		for k := range shape {
			c = c*shape[k] + idx[k]
		}
		switch dtype {
		case "<f8":
			binary.Write(&b, binary.LittleEndian, data[c])
		case "<f4":
			binary.Write(&b, binary.LittleEndian, float32(data[c]))
		default:
			t.Fatalf("dtype %s", dtype)
		}
		for k := range idx {
			idx[k]++
			if idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
	}
	return b.Bytes()
}

// TestFortranLarge reads Fortran-order files whose columns are shorter and
// longer than the streaming buffer, with partial blocks, against the
// row-major data.
func TestFortranLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, shape := range [][]int{
		{1000, 301},      // blocks of 131 columns, the last one partial
		{300000, 2},      // columns longer than the buffer
		{7, 11, 13, 5},   // four dimensions
		{140000, 1},      // one long column
		{3, 200000},      // many short columns
		{50, 1, 1, 1, 3}, // unit dimensions
		{800, 10, 10},    // as a sensing file, blocks of 163 columns
	} {
		n := Header{Shape: shape}.Len()
		data := make([]float64, n)
		for i := range data {
			data[i] = rng.NormFloat64()
		}
		for _, c := range []struct {
			dtype  string
			stream bool // hide io.ReaderAt: read in file order
		}{{"<f8", false}, {"<f4", false}, {"<f8", true}, {"<f4", true}} {
			dtype := c.dtype
			file := fortranFile(t, dtype, shape, data)
			var r io.Reader = bytes.NewReader(file)
			if c.stream {
				r = struct{ io.Reader }{r}
			}
			h, err := ReadHeader(r)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]float64, n)
			if err := ReadData(r, h, got); err != nil {
				t.Fatalf("%v %s: %v", shape, dtype, err)
			}
			for i, v := range got {
				want := data[i]
				if dtype == "<f4" {
					want = float64(float32(want))
				}
				if v != want {
					t.Fatalf("%v %s: value %d is %v, want %v", shape, dtype, i, v, want)
				}
			}
		}
	}
}

// TestWriteRoundTrip writes arrays of several shapes, spanning chunk
// boundaries, and reads them back bit for bit.
func TestWriteRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	special := []float64{0, math.Copysign(0, -1), math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64, 1e-300, 1 / 3.0}
	for _, shape := range [][]int{{}, {1}, {7}, {0}, {3, 0, 2}, {5, 4}, {3, 4, 5}, {140000}, {300, 1000}} {
		n := Header{Shape: shape}.Len()
		data := make([]float64, n)
		for i := range data {
			data[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
		}
		copy(data, special)
		var b bytes.Buffer
		if err := WriteFloat64(&b, shape, data); err != nil {
			t.Fatal(err)
		}
		r := bytes.NewReader(b.Bytes())
		h, err := ReadHeader(r)
		if err != nil {
			t.Fatalf("%v: %v", shape, err)
		}
		if h.HeaderSize()%64 != 0 {
			t.Errorf("%v: data starts at byte %d, not a multiple of 64", shape, h.HeaderSize())
		}
		if h.Dtype != "<f8" || h.Fortran || !slices.Equal(h.Shape, shape) {
			t.Errorf("%v: header %+v", shape, h)
		}
		got := make([]float64, n)
		if err := ReadData(r, h, got); err != nil {
			t.Fatalf("%v: %v", shape, err)
		}
		for i := range data {
			if math.Float64bits(got[i]) != math.Float64bits(data[i]) {
				t.Fatalf("%v: value %d is %v, want %v", shape, i, got[i], data[i])
			}
		}

		b.Reset()
		if err := WriteFloat32(&b, shape, data); err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b.Bytes())
		if h, err = ReadHeader(r); err != nil || h.Dtype != "<f4" {
			t.Fatalf("%v: float32 header %+v, %v", shape, h, err)
		}
		if err := ReadData(r, h, got); err != nil {
			t.Fatal(err)
		}
		for i := range data {
			if got[i] != float64(float32(data[i])) {
				t.Fatalf("%v: float32 value %d is %v, want %v", shape, i, got[i], float32(data[i]))
			}
		}
	}
}

// TestWriteArray writes every dtype in both orders and reads it back;
// Fortran-order files must match, byte for byte, those built by hand.
func TestWriteArray(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, shape := range [][]int{{5}, {4, 7}, {3, 4, 5}, {2, 1, 3, 2}, {0, 4}, {200, 700}} {
		n := Header{Shape: shape}.Len()
		data := make([]float64, n)
		for i := range data {
			data[i] = rng.NormFloat64()
		}
		for _, dtype := range []string{"<f8", "<f4", ">f8", ">f4"} {
			for _, fortran := range []bool{false, true} {
				var b bytes.Buffer
				if err := WriteArray(&b, Header{Dtype: dtype, Fortran: fortran, Shape: shape}, data); err != nil {
					t.Fatal(err)
				}
				if fortran && dtype[0] == '<' && len(shape) > 1 {
					if want := fortranFile(t, dtype, shape, data); !bytes.Equal(b.Bytes(), want) {
						t.Errorf("%v %s: Fortran file differs from the one built by hand", shape, dtype)
					}
				}
				r := bytes.NewReader(b.Bytes())
				h, err := ReadHeader(r)
				if err != nil || h.Dtype != dtype || h.Fortran != fortran || !slices.Equal(h.Shape, shape) {
					t.Fatalf("%v %s: header %+v, %v", shape, dtype, h, err)
				}
				got := make([]float64, n)
				if err := ReadData(r, h, got); err != nil {
					t.Fatalf("%v %s fortran=%v: %v", shape, dtype, fortran, err)
				}
				for i, v := range data {
					want := v
					if dtype[2] == '4' {
						want = float64(float32(v))
					}
					if got[i] != want {
						t.Fatalf("%v %s fortran=%v: value %d is %v, want %v", shape, dtype, fortran, i, got[i], want)
					}
				}
			}
		}
	}
	for _, h := range []Header{{Dtype: "<i8", Shape: []int{1}}, {Dtype: "<f8", Shape: []int{2}}, {Dtype: "<f8", Shape: []int{-1}}} {
		if err := WriteArray(io.Discard, h, []float64{1}); err == nil {
			t.Errorf("%+v: no error", h)
		}
	}
}

// TestWriteArrayParts: values given a part at a time, through a slice the
// parts reuse, make the file WriteArray makes of them whole, across the
// parts' mebibyte; Fortran order is refused where it differs from C's.
func TestWriteArrayParts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 5, 262144, 262145, 600001} {
		data := make([]float32, n)
		for i := range data {
			data[i] = float32(rng.NormFloat64())
		}
		for _, dtype := range []string{"<f4", ">f8"} {
			h := Header{Dtype: dtype, Shape: []int{n}}
			var whole, parts bytes.Buffer
			if err := WriteArray(&whole, h, data); err != nil {
				t.Fatal(err)
			}
			var buf []float32
			calls := 0
			err := WriteArrayParts(&parts, h, n, func(lo, hi int) []float32 {
				calls++
				buf = append(buf[:0], data[lo:hi]...)
				return buf
			})
			if err != nil {
				t.Fatal(err)
			}
			// The bytes built apart: the header, then each value.
			var want bytes.Buffer
			if err := WriteHeader(&want, h); err != nil {
				t.Fatal(err)
			}
			if dtype == "<f4" {
				binary.Write(&want, binary.LittleEndian, data)
			} else {
				for _, v := range data {
					binary.Write(&want, binary.BigEndian, float64(v))
				}
			}
			if !bytes.Equal(whole.Bytes(), want.Bytes()) || !bytes.Equal(parts.Bytes(), want.Bytes()) {
				t.Fatalf("%d values %s: the parts' file or the whole's differs from the bytes built apart", n, dtype)
			}
			if per := chunkBytes / (int(dtype[2] - '0')); calls != (n+per-1)/per {
				t.Errorf("%d values %s: %d parts, want %d", n, dtype, calls, (n+per-1)/per)
			}
		}
	}
	if err := WriteArrayParts(io.Discard, Header{Dtype: "<f4", Fortran: true, Shape: []int{2, 3}}, 6, func(lo, hi int) []float32 { return make([]float32, hi-lo) }); err == nil {
		t.Error("Fortran order of 2 × 3 values: no error")
	}
	if err := WriteArrayParts(io.Discard, Header{Dtype: "<f4", Shape: []int{6}}, 6, func(lo, hi int) []float32 { return make([]float32, hi-lo-1) }); err == nil {
		t.Error("a part one value short: no error")
	}
}

// TestHeaderAsNumPy checks the header against the bytes NumPy writes for
// the same array (testdata/numpy, less the spare room NumPy >= 1.23 leaves
// after the dictionary).
func TestHeaderAsNumPy(t *testing.T) {
	var b bytes.Buffer
	if err := WriteFloat64(&b, []int{3, 2}, pattern([]int{3, 2})); err != nil {
		t.Fatal(err)
	}
	want := "\x93NUMPY\x01\x00\x76\x00{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }"
	if got := b.String(); !strings.HasPrefix(got, want) || got[127] != '\n' || strings.TrimRight(got[len(want):127], " ") != "" {
		t.Errorf("header %q, want %q padded to 128 bytes", got[:128], want)
	}
	old, err := os.ReadFile("testdata/numpy/f8_old_3x2.npy")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes()[128:], old[80:]) {
		t.Error("data differs from NumPy's")
	}
}

// TestCrossNpyio checks the reader and writer against an independent
// implementation, github.com/sbinet/npyio, on the files both support.
func TestCrossNpyio(t *testing.T) {
	want := pattern([]int{4, 6})
	var b bytes.Buffer
	if err := WriteFloat64(&b, []int{4, 6}, want); err != nil {
		t.Fatal(err)
	}
	var m mat.Dense
	if err := npy.Read(bytes.NewReader(b.Bytes()), &m); err != nil {
		t.Fatal(err)
	}
	if r, c := m.Dims(); r != 4 || c != 6 || !slices.Equal(m.RawMatrix().Data, want) {
		t.Errorf("npyio reads %d×%d %v, want 4×6 %v", r, c, m.RawMatrix().Data, want)
	}

	b.Reset()
	if err := npy.Write(&b, mat.NewDense(4, 6, want)); err != nil {
		t.Fatal(err)
	}
	r := bytes.NewReader(b.Bytes())
	h, err := ReadHeader(r)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float64, h.Len())
	if err := ReadData(r, h, got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(h.Shape, []int{4, 6}) || !slices.Equal(got, want) {
		t.Errorf("npyio's file reads as %v %v", h.Shape, got)
	}
}

// TestTruncated cuts a valid file at every length: each prefix is an error,
// never a panic nor a silent success.
func TestTruncated(t *testing.T) {
	for _, name := range []string{"f8_c_2x3x4.npy", "f4_f_2x3x4.npy", "be_f8_f_2x3x4.npy", "f8_v2_3x2.npy"} {
		file, err := os.ReadFile(filepath.Join("testdata/numpy", name))
		if err != nil {
			t.Fatal(err)
		}
		for n := range 2 * len(file) {
			var r io.Reader = bytes.NewReader(file[:n%len(file)])
			if n >= len(file) {
				r = struct{ io.Reader }{r}
			}
			h, err := ReadHeader(r)
			if err == nil {
				err = ReadData(r, h, make([]float64, h.Len()))
			}
			if err == nil {
				t.Fatalf("%s cut to %d bytes reads without error", name, n%len(file))
			}
			if !strings.Contains(err.Error(), "truncated") && !strings.Contains(err.Error(), "empty file") {
				t.Errorf("%s cut to %d bytes: %v", name, n%len(file), err)
			}
		}
		extra := append(append([]byte(nil), file...), 0)
		r := bytes.NewReader(extra)
		h, _ := ReadHeader(r)
		if err := ReadData(r, h, make([]float64, h.Len())); err == nil || !strings.Contains(err.Error(), "more data") {
			t.Errorf("%s with a trailing byte: %v", name, err)
		}
	}
}

// header builds a version 1.0 file from a raw dictionary.
func header(dict string) []byte {
	var b bytes.Buffer
	b.WriteString(magic + "\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(dict)))
	b.WriteString(dict)
	return b.Bytes()
}

// TestBadHeaders feeds corrupted and unsupported headers: each is one
// clear error.
func TestBadHeaders(t *testing.T) {
	ok := "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }\n"
	cases := []struct {
		file []byte
		want string
	}{
		{[]byte{}, "empty file"},
		{[]byte("\x93NUM"), "truncated"},
		{[]byte("PK\x03\x04 not npy at all"), "not a .npy file"},
		{[]byte("\x93NUMPY\x04\x00\x10\x00"), "version 4.0"},
		{[]byte("\x93NUMPY\x01\x00\xff\x00{'descr'"), "truncated"},
		{[]byte("\x93NUMPY\x02\x00\xff\xff\xff\x7f{"), "claims 2147483647 bytes"},
		{header("[1, 2]\n"), "not a dictionary"},
		{header("{'descr': '<f8', 'fortran_order': False}\n"), `no "shape" key`},
		{header("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'x': 1}\n"), `unexpected key "x"`},
		{header("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (2,)}"), "appears twice"},
		{header("{'descr': '<f8', 'fortran_order': 0, 'shape': (2,), }\n"), "neither True nor False"},
		{header("{'descr': '<f8', 'fortran_order': False, 'shape': [2], }\n"), "expected a tuple"},
		{header("{'descr': '<f8', 'fortran_order': False, 'shape': (-2,), }\n"), "non-negative integer"},
		{header("{'descr': '<f8', 'fortran_order': False, 'shape': (2 3), }\n"), "expected ',' or ')'"},
		{header("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999, 99999999999), }\n"), "too large"},
		{header("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,), }\n"), "too large"},
		{header("{'descr': '<f8, 'fortran_order': False, 'shape': (2,), }\n"), "expected ',' or '}'"},
		{header("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }\n junk"), "unexpected bytes"},
		{header("{'descr': '\xe9', 'fortran_order': False, 'shape': (2,), }\n"), "non-ASCII"},
		{header("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (2,), }\n"), "structured"},
		{header("{'descr': '', 'fortran_order': False, 'shape': (2,), }\n"), "empty 'descr'"},
		{header("{'descr': '<f8', 'fortran_order': False, 'shape': (2,),"), "expected a quoted string"},
	}
	for _, c := range cases {
		_, err := ReadHeader(bytes.NewReader(c.file))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to mention %q", c.file, err, c.want)
		}
	}
	if _, err := ReadHeader(bytes.NewReader(header(ok))); err != nil {
		t.Errorf("valid header: %v", err)
	}
	for dtype, want := range map[string]string{
		"<i8": "int64", "|u1": "uint8", "|b1": "bool", "<c16": "complex128", "<f2": "float16",
		"|O": "object", "<U5": "str", "<M8[ns]": "datetime", "=f8": `"=f8"`, "<f16": "float128",
	} {
		h, err := ReadHeader(bytes.NewReader(header(strings.Replace(ok, "<f8", dtype, 1))))
		if err != nil {
			t.Fatalf("%s: %v", dtype, err)
		}
		err = ReadData(bytes.NewReader(nil), h, make([]float64, 2))
		if err == nil || !strings.Contains(err.Error(), "unsupported dtype") || !strings.Contains(err.Error(), want) {
			t.Errorf("dtype %s: %v, want an unsupported dtype naming %s", dtype, err, want)
		}
	}
}

// TestWriteInt32Parts: int32 values given a part at a time, through a
// slice the parts reuse, make the file WriteInt32 makes of them whole, the
// header and each value as built apart, across the parts' mebibyte; a
// short part is refused.
func TestWriteInt32Parts(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 262144, 262145, 600001} {
		data := make([]int32, n)
		for i := range data {
			data[i] = int32(rng.Uint32())
		}
		var whole, parts, want bytes.Buffer
		if err := WriteInt32(&whole, []int{n}, data); err != nil {
			t.Fatal(err)
		}
		var buf []int32
		calls := 0
		if err := WriteInt32Parts(&parts, []int{n}, n, func(lo, hi int) []int32 {
			calls++
			buf = append(buf[:0], data[lo:hi]...)
			return buf
		}); err != nil {
			t.Fatal(err)
		}
		if err := WriteHeader(&want, Header{Dtype: "<i4", Shape: []int{n}}); err != nil {
			t.Fatal(err)
		}
		binary.Write(&want, binary.LittleEndian, data)
		if !bytes.Equal(whole.Bytes(), want.Bytes()) || !bytes.Equal(parts.Bytes(), want.Bytes()) {
			t.Fatalf("%d values: the parts' file or the whole's differs from the bytes built apart", n)
		}
		if per := chunkBytes / 4; calls != (n+per-1)/per {
			t.Errorf("%d values: %d parts, want %d", n, calls, (n+per-1)/per)
		}
	}
	if err := WriteInt32Parts(io.Discard, []int{6}, 6, func(lo, hi int) []int32 { return make([]int32, hi-lo-1) }); err == nil {
		t.Error("a part one value short: no error")
	}
}
