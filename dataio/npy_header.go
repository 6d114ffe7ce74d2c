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
