package dataio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// magic opens every .npy file.
const magic = "\x93NUMPY"

// maxHeaderLen bounds the header dictionary a reader accepts, so that a
// corrupted length field cannot make it allocate gigabytes. NumPy writes a
// few dozen bytes here and itself refuses more than 10000 by default.
const maxHeaderLen = 1 << 16

// Header describes the array in a .npy file: its element type, layout and
// shape. The data follows the header as a flat sequence of elements.
type Header struct {
	// Dtype is NumPy's type string: a byte order ('<' little endian, '>' big
	// endian, '|' not applicable), a kind and an item size, as in '<f8'.
	Dtype string
	// Fortran is true when the data is in column-major (Fortran) order,
	// false for row-major (C) order.
	Fortran bool
	// Shape is the array's shape; empty for a scalar.
	Shape []int

	size int64 // bytes of header before the data: magic, version, length and dictionary
}

// Len returns the number of elements, the product of the shape.
func (h Header) Len() int {
	n := 1
	for _, d := range h.Shape {
		n *= d
	}
	return n
}

// HeaderSize returns the number of bytes before the data in the file the
// header was read from; 0 for a header not read from a file.
func (h Header) HeaderSize() int64 { return h.size }

// ShapeString returns the shape as NumPy prints it: (3,), (3, 4) or ().
func ShapeString(shape []int) string {
	switch len(shape) {
	case 0:
		return "()"
	case 1:
		return fmt.Sprintf("(%d,)", shape[0])
	}
	s := make([]string, len(shape))
	for i, d := range shape {
		s[i] = strconv.Itoa(d)
	}
	return "(" + strings.Join(s, ", ") + ")"
}

// floatKind reports the item size and byte order of a float32 or float64
// dtype, or ok = false for any other dtype.
func floatKind(dtype string) (size int, order binary.ByteOrder, ok bool) {
	if len(dtype) != 3 || dtype[1] != 'f' {
		return 0, nil, false
	}
	switch dtype[0] {
	case '<':
		order = binary.LittleEndian
	case '>':
		order = binary.BigEndian
	default:
		return 0, nil, false
	}
	switch dtype[2] {
	case '4':
		return 4, order, true
	case '8':
		return 8, order, true
	}
	return 0, nil, false
}

// dtypeNames names the dtypes a reader may meet, for error messages.
var dtypeNames = map[byte]string{
	'b': "bool", 'i': "int", 'u': "uint", 'f': "float", 'c': "complex",
	'm': "timedelta", 'M': "datetime", 'O': "object", 'S': "bytes", 'a': "bytes",
	'U': "str", 'V': "void",
}

// unsupportedDtype returns the error for a dtype that is not float32 or
// float64, naming it as NumPy would where it can.
func unsupportedDtype(dtype string) error {
	name := ""
	if d := strings.TrimLeft(dtype, "<>|="); d != "" {
		if kind, ok := dtypeNames[d[0]]; ok {
			name = kind
			if n, err := strconv.Atoi(d[1:]); err == nil && n > 0 && strings.ContainsRune("iufc", rune(d[0])) {
				name += strconv.Itoa(8 * n)
			}
			name = " (" + name + ")"
		}
	}
	return fmt.Errorf("unsupported dtype %q%s: want float64 ('<f8') or float32 ('<f4')", dtype, name)
}

// ReadHeader reads the header of a .npy file from r, leaving r at the start
// of the data. It accepts format versions 1.0, 2.0 and 3.0 and any dtype;
// the shape's total size in bytes must fit in an int64.
func ReadHeader(r io.Reader) (Header, error) {
	var pre [10]byte
	if n, err := io.ReadFull(r, pre[:8]); err != nil {
		if n == 0 && err == io.EOF {
			return Header{}, errors.New("empty file, not a .npy file")
		}
		if err == io.ErrUnexpectedEOF {
			return Header{}, fmt.Errorf("truncated: %d bytes, too short for a .npy header", n)
		}
		return Header{}, readError(err)
	}
	if string(pre[:6]) != magic {
		return Header{}, errors.New("not a .npy file (it does not start with \\x93NUMPY)")
	}
	major, minor := pre[6], pre[7]
	var hlen int64
	switch major {
	case 1:
		if _, err := io.ReadFull(r, pre[8:10]); err != nil {
			return Header{}, truncatedHeader(err)
		}
		hlen = int64(binary.LittleEndian.Uint16(pre[8:10]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return Header{}, truncatedHeader(err)
		}
		hlen = int64(binary.LittleEndian.Uint32(b[:]))
	default:
		return Header{}, fmt.Errorf("unsupported .npy format version %d.%d (want 1.0, 2.0 or 3.0)", major, minor)
	}
	if hlen > maxHeaderLen {
		return Header{}, fmt.Errorf("corrupted header: it claims %d bytes, more than the %d a .npy header may have", hlen, maxHeaderLen)
	}
	buf := make([]byte, hlen)
	if _, err := io.ReadFull(r, buf); err != nil {
		return Header{}, truncatedHeader(err)
	}
	h, err := parseHeader(buf, major)
	if err != nil {
		return Header{}, fmt.Errorf("corrupted header: %w", err)
	}
	h.size = 8 + hlen + 2
	if major > 1 {
		h.size += 2
	}
	return h, nil
}

func truncatedHeader(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return errors.New("truncated: the file ends inside the .npy header")
	}
	return readError(err)
}

// readError returns an error of the underlying reader for a message.
func readError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the caller names the file
	}
	return fmt.Errorf("cannot read: %w", err)
}

// parseHeader parses the header dictionary, a Python literal such as
//
//	{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
//
// followed by spaces and a newline.
func parseHeader(buf []byte, major byte) (Header, error) {
	if major < 3 {
		for _, c := range buf {
			if c >= 0x80 {
				return Header{}, errors.New("non-ASCII byte in a version 1 or 2 header")
			}
		}
	}
	p := &dictParser{s: buf}
	var h Header
	seen := map[string]bool{}
	p.space()
	if !p.eat('{') {
		return Header{}, errors.New("the header is not a dictionary")
	}
	for {
		p.space()
		if p.eat('}') {
			break
		}
		key, err := p.str()
		if err != nil {
			return Header{}, fmt.Errorf("dictionary key: %w", err)
		}
		if seen[key] {
			return Header{}, fmt.Errorf("key %q appears twice", key)
		}
		seen[key] = true
		p.space()
		if !p.eat(':') {
			return Header{}, fmt.Errorf("no ':' after key %q", key)
		}
		p.space()
		switch key {
		case "descr":
			if p.peek() == '[' {
				return Header{}, errors.New("unsupported dtype: structured (record) arrays cannot hold a matrix; want float64 ('<f8') or float32 ('<f4')")
			}
			if h.Dtype, err = p.str(); err != nil {
				return Header{}, fmt.Errorf("'descr': %w", err)
			}
		case "fortran_order":
			switch {
			case p.word("True"):
				h.Fortran = true
			case p.word("False"):
				h.Fortran = false
			default:
				return Header{}, errors.New("'fortran_order' is neither True nor False")
			}
		case "shape":
			if h.Shape, err = p.tuple(); err != nil {
				return Header{}, fmt.Errorf("'shape': %w", err)
			}
		default:
			return Header{}, fmt.Errorf("unexpected key %q", key)
		}
		p.space()
		if p.eat(',') {
			continue
		}
		p.space()
		if p.eat('}') {
			break
		}
		return Header{}, errors.New("expected ',' or '}' in the dictionary")
	}
	p.space()
	if p.i != len(p.s) {
		return Header{}, errors.New("unexpected bytes after the dictionary")
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return Header{}, fmt.Errorf("no %q key", k)
		}
	}
	if h.Shape == nil {
		h.Shape = []int{}
	}
	if h.Dtype == "" {
		return Header{}, errors.New("empty 'descr'")
	}
	// The whole array must be addressable: elements times the largest
	// item size NumPy has (complex256, 32 bytes) must fit in an int.
	n := uint64(32)
	for _, d := range h.Shape {
		if d == 0 {
			return h, nil
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > math.MaxInt {
			return Header{}, fmt.Errorf("shape %s is too large", ShapeString(h.Shape))
		}
		n = lo
	}
	return h, nil
}

// dictParser reads the few Python literals a .npy header holds.
type dictParser struct {
	s []byte
	i int
}

func (p *dictParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *dictParser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *dictParser) eat(c byte) bool {
	if p.peek() == c {
		p.i++
		return true
	}
	return false
}

func (p *dictParser) word(w string) bool {
	if bytes.HasPrefix(p.s[p.i:], []byte(w)) {
		p.i += len(w)
		return true
	}
	return false
}

// str reads a quoted string without escapes.
func (p *dictParser) str() (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", errors.New("expected a quoted string")
	}
	end := bytes.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", errors.New("unterminated string")
	}
	s := p.s[p.i+1 : p.i+1+end]
	if bytes.IndexByte(s, '\\') >= 0 || bytes.IndexByte(s, '\n') >= 0 {
		return "", errors.New("unexpected character in a string")
	}
	p.i += end + 2
	return string(s), nil
}

// tuple reads a tuple of non-negative integers: (), (3,), (3, 4). Python 2
// long suffixes, as in (3L, 4L), are accepted.
func (p *dictParser) tuple() ([]int, error) {
	if !p.eat('(') {
		return nil, errors.New("expected a tuple")
	}
	shape := []int{}
	for {
		p.space()
		if p.eat(')') {
			return shape, nil
		}
		start := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		if p.i == start {
			return nil, errors.New("expected a non-negative integer dimension")
		}
		d, err := strconv.ParseInt(string(p.s[start:p.i]), 10, 64)
		if err != nil || d > math.MaxInt {
			return nil, fmt.Errorf("dimension %s is too large", p.s[start:p.i])
		}
		p.eat('L')
		shape = append(shape, int(d))
		p.space()
		if p.eat(',') {
			continue
		}
		p.space()
		if p.eat(')') {
			return shape, nil
		}
		return nil, errors.New("expected ',' or ')' in the tuple")
	}
}

// Float is the element type an array can be read into.
type Float interface{ ~float32 | ~float64 }

// chunkBytes is the size of the buffer through which data is streamed: big
// enough for fast reads, small beside the arrays.
const chunkBytes = 1 << 20

// ReadData reads the data of a float32 or float64 array described by h
// from r, positioned just after the header, into dst in row-major (C)
// order, whatever the file's order and dtype: float32 and float64 values
// are converted, and Fortran-order data is transposed, while streaming
// through a fixed buffer of 1 MiB, so that dst is the only copy of the
// data. dst must have length h.Len(). ReadData fails if the data ends
// early or if r holds more data than the header declares.
//
// Converting float64 data into a float32 dst rounds it. When r is also an
// io.ReaderAt and io.Seeker, such as an *os.File, Fortran-order data of
// three or more dimensions is read a column at a time at its offset, which
// keeps the writes to dst contiguous.
//
// sbinet/npyio reads .npy files too, but it converts dtypes and Fortran
// order through a second copy of the data (its mat.Dense path), does not
// detect truncated data (a short read keeps the previous value) and
// panics on some corrupted headers; hence this reader.
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
	per := chunkBytes / size
	buf := make([]byte, 0, min(per, len(data))*size)
	put := func(v T) {
		if size == 8 {
			buf = app.AppendUint64(buf, math.Float64bits(float64(v)))
		} else {
			buf = app.AppendUint32(buf, math.Float32bits(float32(v)))
		}
	}
	flush := func() error {
		_, err := w.Write(buf)
		buf = buf[:0]
		return err
	}
	if !h.Fortran || len(h.Shape) < 2 || len(data) == 0 {
		for off := 0; off < len(data); off += per {
			for _, v := range data[off:min(off+per, len(data))] {
				put(v)
			}
			if err := flush(); err != nil {
				return err
			}
		}
		return nil
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
		put(data[c])
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
