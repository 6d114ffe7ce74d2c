package dataio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/mat"
)

// WriteHeader writes the header of an array as NumPy does: format
// version 1.0 (2.0 if the dictionary needs more than 64 KiB, 3.0 if it is
// not ASCII), the dictionary padded with spaces and a newline so that the
// data starts at a multiple of 64 bytes. It checks that h.Shape is valid,
// but not the dtype.
func WriteHeader(w io.Writer, h Header) error {
	for _, d := range h.Shape {
		if d < 0 {
			return fmt.Errorf("dataio: negative dimension in shape %v", h.Shape)
		}
	}
	fortran := "False"
	if h.Fortran {
		fortran = "True"
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", h.Dtype, fortran, ShapeString(h.Shape))
	const align = 64
	major, lenField := byte(1), 2
	if len(dict)+1+8+2+align > math.MaxUint16 {
		major, lenField = 2, 4
	}
	for _, c := range []byte(dict) {
		if c >= 0x80 {
			major, lenField = 3, 4 // UTF-8
			break
		}
	}
	pad := align - (8+lenField+len(dict)+1)%align
	if pad == align {
		pad = 0
	}
	hlen := len(dict) + pad + 1
	out := make([]byte, 0, 8+lenField+hlen)
	out = append(out, magic...)
	out = append(out, major, 0)
	if lenField == 2 {
		out = binary.LittleEndian.AppendUint16(out, uint16(hlen))
	} else {
		out = binary.LittleEndian.AppendUint32(out, uint32(hlen))
	}
	out = append(out, dict...)
	out = append(out, bytes.Repeat([]byte{' '}, pad)...)
	out = append(out, '\n')
	_, err := w.Write(out)
	return err
}

// checkShape checks that shape holds n values.
func checkShape(shape []int, n int) error {
	h := Header{Shape: shape}
	for _, d := range shape {
		if d < 0 {
			return fmt.Errorf("dataio: negative dimension in shape %v", shape)
		}
	}
	if h.Len() != n {
		return fmt.Errorf("dataio: shape %s holds %d values, the data has %d", ShapeString(shape), h.Len(), n)
	}
	return nil
}

// WriteFloat64 writes data as a C-ordered float64 ('<f8') array of the
// given shape, whose product must be len(data), in chunks of 1 MiB.
func WriteFloat64(w io.Writer, shape []int, data []float64) error {
	return WriteArray(w, Header{Dtype: "<f8", Shape: shape}, data)
}

// WriteFloat32 writes data, rounded to float32, as a C-ordered float32
// ('<f4') array of the given shape.
func WriteFloat32(w io.Writer, shape []int, data []float64) error {
	return WriteArray(w, Header{Dtype: "<f4", Shape: shape}, data)
}

// WriteArray writes the row-major data, float64 or float32 values, as the
// array h describes: float64 or float32 ('<f8', '<f4', or big endian '>f8',
// '>f4', float64 values rounded to float32 for the latter), in C order, or
// in Fortran order when h.Fortran is set, as NumPy writes
// np.asfortranarray(a). The product of h.Shape must be len(data). The data
// is encoded through a buffer of 1 MiB, without copying it; Fortran order
// gathers each column across the rows, which is slower for large arrays.
func WriteArray[T Float](w io.Writer, h Header, data []T) error {
	if !h.Fortran || len(h.Shape) < 2 || len(data) == 0 {
		return WriteArrayParts(w, h, len(data), func(lo, hi int) []T { return data[lo:hi] })
	}
	size, order, ok := floatKind(h.Dtype)
	if !ok {
		return fmt.Errorf("dataio: %w", unsupportedDtype(h.Dtype))
	}
	if err := checkShape(h.Shape, len(data)); err != nil {
		return err
	}
	if err := WriteHeader(w, h); err != nil {
		return err
	}
	app := order.(binary.AppendByteOrder)
	buf := make([]byte, 0, min(chunkBytes/size, len(data))*size)
	flush := func() error {
		_, err := w.Write(buf)
		buf = buf[:0]
		return err
	}
	// Fortran order: the first index varies fastest, then the others in
	// turn; idx is the multi-index and c its row-major offset.
	stride := make([]int, len(h.Shape))
	st := 1
	for k := len(h.Shape) - 1; k >= 0; k-- {
		stride[k] = st
		st *= h.Shape[k]
	}
	idx := make([]int, len(h.Shape))
	c := 0
	for range data {
		buf = appendFloat(buf, app, size, data[c])
		if len(buf) == cap(buf) {
			if err := flush(); err != nil {
				return err
			}
		}
		for k := range idx {
			idx[k]++
			c += stride[k]
			if idx[k] < h.Shape[k] {
				break
			}
			idx[k] = 0
			c -= h.Shape[k] * stride[k]
		}
	}
	return flush()
}

// WriteArrayParts writes n values as WriteArray writes them in C order
// (h.Fortran is refused for values in more than one dimension), taking
// them a part at a time: part(lo, hi) returns the values from lo to hi,
// at most a mebibyte's worth, and may reuse its slice from one call to
// the next. An array made as it is written, such as values decoded from
// codes, is then never held whole.
func WriteArrayParts[T Float](w io.Writer, h Header, n int, part func(lo, hi int) []T) error {
	size, order, ok := floatKind(h.Dtype)
	if !ok {
		return fmt.Errorf("dataio: %w", unsupportedDtype(h.Dtype))
	}
	if h.Fortran && len(h.Shape) > 1 && n > 0 {
		return errors.New("dataio: WriteArrayParts writes C order only")
	}
	if err := checkShape(h.Shape, n); err != nil {
		return err
	}
	if err := WriteHeader(w, h); err != nil {
		return err
	}
	app := order.(binary.AppendByteOrder)
	per := chunkBytes / size
	buf := make([]byte, 0, min(per, n)*size)
	for off := 0; off < n; off += per {
		hi := min(off+per, n)
		vs := part(off, hi)
		if len(vs) != hi-off {
			return fmt.Errorf("dataio: WriteArrayParts: the part from %d to %d has %d values", off, hi, len(vs))
		}
		for _, v := range vs {
			buf = appendFloat(buf, app, size, v)
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
		buf = buf[:0]
	}
	return nil
}

// appendFloat appends v to buf in size bytes (8: float64, 4: float32, v
// rounded to it) in the byte order app.
func appendFloat[T Float](buf []byte, app binary.AppendByteOrder, size int, v T) []byte {
	if size == 8 {
		return app.AppendUint64(buf, math.Float64bits(float64(v)))
	}
	return app.AppendUint32(buf, math.Float32bits(float32(v)))
}

// WriteBool writes data as a C-ordered bool ('|b1') array of the given
// shape.
func WriteBool(w io.Writer, shape []int, data []bool) error {
	if err := checkShape(shape, len(data)); err != nil {
		return err
	}
	if err := WriteHeader(w, Header{Dtype: "|b1", Shape: shape}); err != nil {
		return err
	}
	buf := make([]byte, len(data))
	for i, v := range data {
		if v {
			buf[i] = 1
		}
	}
	_, err := w.Write(buf)
	return err
}

// WriteDense writes the matrix x as a float64 .npy array of its shape, in
// C order.
func WriteDense(w io.Writer, x *mat.Dense) error {
	r, c := x.Dims()
	if raw := x.RawMatrix(); raw.Stride == c {
		// contiguous: written as it is, without a copy of its size (the
		// factors at 10^5 rows would add 16 MB to a solve's peak)
		return WriteFloat64(w, []int{r, c}, raw.Data[:r*c])
	}
	data := make([]float64, 0, r*c)
	for i := range r {
		data = append(data, x.RawRowView(i)...)
	}
	return WriteFloat64(w, []int{r, c}, data)
}

// WriteRows32 writes an n1 × n2 C-ordered float32 ('<f4') array a row
// at a time: row(i, dst) fills row i into dst (n2 values), so that the
// array is never held whole.
func WriteRows32(w io.Writer, n1, n2 int, row func(i int, dst []float32)) error {
	if err := WriteHeader(w, Header{Dtype: "<f4", Shape: []int{n1, n2}}); err != nil {
		return err
	}
	dst, buf := make([]float32, n2), make([]byte, 4*n2)
	for i := range n1 {
		row(i, dst)
		for j, v := range dst {
			binary.LittleEndian.PutUint32(buf[4*j:], math.Float32bits(v))
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}
