package dataio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Float is the element type an array can be read into.
type Float interface{ ~float32 | ~float64 }

// chunkBytes is the size of the buffer through which data is streamed: big
// enough for fast reads, small beside the arrays.
const chunkBytes = 1 << 20

// ReadData reads the data of a float32 or float64 array described by h
// from r, positioned just after the header, into dst in row-major (C)
// order whatever the file's order and dtype: values are converted (float64
// into float32 rounds) and Fortran-order data is transposed while
// streaming through a fixed 1 MiB buffer, so that dst is the only copy.
// dst must have length h.Len(). ReadData fails if the data ends early or
// if r holds more than the header declares. When r is also an io.ReaderAt
// and io.Seeker, such as an *os.File, Fortran-order data of three or more
// dimensions is read a column at a time at its offset, keeping the writes
// to dst contiguous. It is written here because sbinet/npyio converts
// through a second copy, does not detect truncated data and panics on
// some corrupted headers.
func ReadData[T Float](r io.Reader, h Header, dst []T) error {
	size, order, ok := floatKind(h.Dtype)
	if !ok {
		return unsupportedDtype(h.Dtype)
	}
	n := h.Len()
	if len(dst) != n {
		return fmt.Errorf("destination holds %d values, the array %s has %d", len(dst), ShapeString(h.Shape), n)
	}
	dec := decoder[T]{size: size, order: order}
	var err error
	if h.Fortran && len(h.Shape) > 1 {
		err = dec.readFortran(r, h.Shape, dst)
	} else {
		err = dec.readC(r, dst)
	}
	if err != nil {
		return err
	}
	var one [1]byte
	switch k, err := io.ReadFull(r, one[:]); {
	case k > 0:
		return fmt.Errorf("corrupted: the file holds more data than the %d values of shape %s its header declares", n, ShapeString(h.Shape))
	case err != io.EOF:
		return readError(err)
	}
	return nil
}

// decoder converts raw elements of one dtype to T.
type decoder[T Float] struct {
	size  int
	order binary.ByteOrder
	done  int64 // bytes read so far, for error messages
	total int64
}

// decode converts the raw elements in b into dst, one loop per dtype so
// that the byte-order conversion inlines.
func (d *decoder[T]) decode(dst []T, b []byte) {
	le := d.order == binary.LittleEndian
	switch {
	case d.size == 8 && le:
		for k := range dst {
			dst[k] = T(math.Float64frombits(binary.LittleEndian.Uint64(b[8*k:])))
		}
	case d.size == 8:
		for k := range dst {
			dst[k] = T(math.Float64frombits(binary.BigEndian.Uint64(b[8*k:])))
		}
	case le:
		for k := range dst {
			dst[k] = T(math.Float32frombits(binary.LittleEndian.Uint32(b[4*k:])))
		}
	default:
		for k := range dst {
			dst[k] = T(math.Float32frombits(binary.BigEndian.Uint32(b[4*k:])))
		}
	}
}

// fill reads exactly len(b) bytes.
func (d *decoder[T]) fill(r io.Reader, b []byte) error {
	k, err := io.ReadFull(r, b)
	d.done += int64(k)
	switch err {
	case nil:
		return nil
	case io.EOF, io.ErrUnexpectedEOF:
		return fmt.Errorf("truncated: the data ends after %d of the %d bytes its header declares", d.done, d.total)
	}
	return readError(err)
}

// readC streams C-ordered (or one-dimensional) data into dst.
func (d *decoder[T]) readC(r io.Reader, dst []T) error {
	d.total = int64(len(dst)) * int64(d.size)
	per := chunkBytes / d.size
	buf := make([]byte, min(per, len(dst))*d.size)
	for off := 0; off < len(dst); off += per {
		out := dst[off:min(off+per, len(dst))]
		b := buf[:len(out)*d.size]
		if err := d.fill(r, b); err != nil {
			return err
		}
		d.decode(out, b)
	}
	return nil
}

// readFortran streams column-major data of the given shape into dst in
// row-major order. The file is a sequence of columns of length shape[0],
// one per index of the trailing dimensions, the first of them varying
// fastest; a block of whole columns is read at a time and scattered to
// its rows, so that writes to dst run along them.
func (d *decoder[T]) readFortran(r io.Reader, shape []int, dst []T) error {
	d.total = int64(len(dst)) * int64(d.size)
	if len(dst) == 0 {
		return nil
	}
	rows := shape[0]
	trail := shape[1:]
	cols := len(dst) / rows
	if ra, ok := r.(readSeekerAt); ok && len(trail) > 1 && rows*d.size <= chunkBytes {
		return d.readFortranAt(ra, rows, trail, dst)
	}
	// C strides of the trailing dimensions within a row.
	stride := make([]int, len(trail))
	s := 1
	for k := len(trail) - 1; k >= 0; k-- {
		stride[k] = s
		s *= trail[k]
	}
	idx := make([]int, len(trail)) // trailing index of the next column, Fortran order
	next := 0                      // its offset within a row, C order
	advance := func() int {
		o := next
		for k := range idx { // the first trailing dimension varies fastest
			idx[k]++
			next += stride[k]
			if idx[k] < trail[k] {
				break
			}
			idx[k] = 0
			next -= trail[k] * stride[k]
		}
		return o
	}

	if per := chunkBytes / d.size; rows > per {
		// Columns longer than the buffer: read each in pieces.
		buf := make([]byte, per*d.size)
		col := make([]T, per)
		for range cols {
			o := advance()
			for i0 := 0; i0 < rows; i0 += per {
				k := min(per, rows-i0)
				if err := d.fill(r, buf[:k*d.size]); err != nil {
					return err
				}
				d.decode(col[:k], buf)
				for j, v := range col[:k] {
					dst[(i0+j)*cols+o] = v
				}
			}
		}
		return nil
	}

	// Whole columns at a time: decode a block of them, then transpose it
	// into the rows of dst.
	block := min(cols, chunkBytes/(rows*d.size))
	buf := make([]byte, block*rows*d.size)
	cb := make([]T, block*rows)
	offs := make([]int, block)
	for c := 0; c < cols; c += block {
		nb := min(block, cols-c)
		for b := range nb {
			offs[b] = advance()
		}
		raw := buf[:nb*rows*d.size]
		if err := d.fill(r, raw); err != nil {
			return err
		}
		d.decode(cb[:nb*rows], raw)
		for i := range rows {
			row := dst[i*cols : (i+1)*cols]
			for b, o := range offs[:nb] {
				row[o] = cb[b*rows+i]
			}
		}
	}
	return nil
}

// readSeekerAt is a reader that can also read at any offset, such as a file.
type readSeekerAt interface {
	io.ReaderAt
	io.Seeker
}

// readFortranAt reads column-major data with two or more trailing
// dimensions from a reader that can read at any offset. Streamed in file
// order, consecutive columns of such data land far apart in each row of
// dst, so nearly every write misses the cache (ten times slower at the
// paper's size); read at their offsets, columns come in row-major order of
// their trailing index and a block of them fills a contiguous run of each
// row.
func (d *decoder[T]) readFortranAt(r readSeekerAt, rows int, trail []int, dst []T) error {
	base, err := r.Seek(0, io.SeekCurrent)
	if err != nil {
		return readError(err)
	}
	end, err := r.Seek(0, io.SeekEnd)
	if err != nil {
		return readError(err)
	}
	if end-base < d.total {
		return fmt.Errorf("truncated: the data ends after %d of the %d bytes its header declares", max(end-base, 0), d.total)
	}
	cols := len(dst) / rows
	// Fortran strides of the trailing dimensions, in columns.
	fstride := make([]int, len(trail))
	s := 1
	for k := range trail {
		fstride[k] = s
		s *= trail[k]
	}
	idx := make([]int, len(trail)) // trailing index of the next column, C order
	col := 0                       // its column number in the file
	colBytes := rows * d.size
	block := min(cols, chunkBytes/colBytes)
	buf := make([]byte, block*colBytes)
	cb := make([]T, block*rows)
	for c := 0; c < cols; c += block {
		nb := min(block, cols-c)
		for b := range nb {
			raw := buf[b*colBytes : (b+1)*colBytes]
			if k, err := r.ReadAt(raw, base+int64(col)*int64(colBytes)); k < len(raw) {
				if err == io.EOF {
					return errors.New("truncated: the data ended while it was read")
				}
				return readError(err)
			}
			for k := len(idx) - 1; k >= 0; k-- { // the last dimension varies fastest
				idx[k]++
				col += fstride[k]
				if idx[k] < trail[k] {
					break
				}
				idx[k] = 0
				col -= trail[k] * fstride[k]
			}
		}
		d.decode(cb[:nb*rows], buf[:nb*colBytes])
		for i := range rows {
			row := dst[i*cols+c : i*cols+c+nb]
			for b := range row {
				row[b] = cb[b*rows+i]
			}
		}
	}
	if _, err := r.Seek(base+d.total, io.SeekStart); err != nil {
		return readError(err)
	}
	return nil
}
