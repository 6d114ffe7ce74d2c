package dataio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/mem"
	"github.com/scaledsm/scaledsm/internal/reduce"
	"github.com/scaledsm/scaledsm/ranks"
)

// A FileError is a problem with one input file: it names the input, the
// file and the reason.
type FileError struct {
	Input string // the Files field the file was given as ("sensing", "y", ...); empty for ReadFile
	Path  string
	Err   error
}

// Error returns the input, the file and the reason, as in
// "y file y.npy: shape (9,), want (10,) ...".
func (e *FileError) Error() string {
	if e.Input == "" {
		return e.Path + ": " + e.Err.Error()
	}
	return e.Input + " file " + e.Path + ": " + e.Err.Error()
}

// Unwrap returns the reason.
func (e *FileError) Unwrap() error { return e.Err }

// Reason returns the reason of a *FileError, without the file it names
// (for a caller that names it already), or err itself.
func Reason(err error) error {
	var fe *FileError
	if errors.As(err, &fe) {
		return fe.Err
	}
	return err
}

// ErrMatrixShape is the reason of a FileError for a two-dimensional sensing
// file, shape (m, n1·n2), read without Files.N1 and Files.N2 or with a
// shape that does not match.
var ErrMatrixShape = errors.New("the matrices' shape n1×n2 is needed")

// array is an open .npy file whose header has been read.
type array struct {
	input, path string
	f           *os.File
	h           Header
}

func (a *array) fail(format string, args ...any) error {
	return &FileError{Input: a.input, Path: a.path, Err: fmt.Errorf(format, args...)}
}

// openArray opens a .npy file of float32 or float64 values and reads its
// header. For a regular file it checks that the file's size is the header's
// plus the data's, so that a truncated file is reported before any memory
// is allocated for it.
func openArray(input, path string) (*array, error) {
	return openTyped(input, path, func(dtype string) (int, error) {
		size, _, ok := floatKind(dtype)
		if !ok {
			return 0, unsupportedDtype(dtype)
		}
		return size, nil
	})
}

// openTyped opens a .npy file and reads its header, as openArray does,
// with the item size of its dtype given by itemSize, which rejects the
// dtypes the caller cannot read.
func openTyped(input, path string, itemSize func(dtype string) (int, error)) (*array, error) {
	a := &array{input: input, path: path}
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &FileError{Input: input, Path: path, Err: fmt.Errorf("cannot open: %w", err)}
	}
	a.f = f
	if a.h, err = ReadHeader(f); err != nil {
		f.Close()
		return nil, &FileError{Input: input, Path: path, Err: err}
	}
	size, err := itemSize(a.h.Dtype)
	if err != nil {
		f.Close()
		return nil, &FileError{Input: input, Path: path, Err: err}
	}
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		data := int64(a.h.Len()) * int64(size)
		switch have := st.Size() - a.h.HeaderSize(); {
		case have < data:
			f.Close()
			return nil, a.fail("truncated: it holds %d bytes of data, its header declares %d (%d values of shape %s, dtype %s)",
				have, data, a.h.Len(), ShapeString(a.h.Shape), a.h.Dtype)
		case have > data:
			f.Close()
			return nil, a.fail("corrupted: %d bytes follow the %d values of shape %s its header declares", have-data, a.h.Len(), ShapeString(a.h.Shape))
		}
	}
	return a, nil
}

// read reads the data into a new slice and checks that it is finite.
func (a *array) read() ([]float64, error) {
	return readAs[float64](a)
}

// rows returns the rows [lo, hi) of the array (along its first axis).
func (a *array) rows() int {
	if len(a.h.Shape) == 0 {
		return 1
	}
	return a.h.Shape[0]
}

// float32 reports whether the file holds float32 values.
func (a *array) float32() bool {
	size, _, _ := floatKind(a.h.Dtype)
	return size == 4
}

// readAs reads the data into a new slice of T and checks that it is
// finite.
func readAs[T Float](a *array) ([]T, error) {
	return readRows[T](a, 0, a.rows())
}

// readRows reads the rows [lo, hi) of the data (along the first axis) into
// a new slice of T and checks that they are finite. Rows other than all of
// them are read at their offset in the file, which needs row-major (C)
// order for an array of two or more dimensions.
func readRows[T Float](a *array, lo, hi int) ([]T, error) {
	h, r := a.h, io.Reader(a.f)
	width := 1 // values per row
	if len(h.Shape) > 1 {
		width = h.Len() / h.Shape[0]
	}
	if lo != 0 || hi != a.rows() {
		if h.Fortran && len(h.Shape) > 1 {
			return nil, a.fail("Fortran order: a shard's rows [%d, %d) are not contiguous in the file; write it in C order", lo, hi)
		}
		size, _, _ := floatKind(h.Dtype)
		r = io.NewSectionReader(a.f, h.size+int64(lo)*int64(width)*int64(size), int64(hi-lo)*int64(width)*int64(size))
		h.Shape = append([]int{hi - lo}, h.Shape[1:]...)
	}
	data := mem.Make[T](h.Len())
	if err := ReadData(r, h, data); err != nil {
		return nil, &FileError{Input: a.input, Path: a.path, Err: err}
	}
	size, _, _ := floatKind(h.Dtype)
	wide := size == 8
	for i, v := range data {
		if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
			if _, narrow := any(v).(float32); narrow && wide && !math.IsNaN(f) {
				// A float64 beyond float32's range rounds to an infinity.
				return nil, a.fail("entry %s is %v, or beyond the range of the float32 it is held in (±3.4e38)", index(lo*width+i, a.h.Shape), v)
			}
			return nil, a.fail("entry %s is %v", index(lo*width+i, a.h.Shape), v)
		}
	}
	return data, nil
}

func (a *array) close() {
	if a != nil {
		a.f.Close()
	}
}

// index formats the multi-index of the flat row-major position i.
func index(i int, shape []int) string {
	if len(shape) == 0 {
		return "()"
	}
	idx := make([]string, len(shape))
	for k := len(shape) - 1; k >= 0; k-- {
		idx[k] = strconv.Itoa(i % shape[k])
		i /= shape[k]
	}
	if len(shape) == 1 {
		return "[" + idx[0] + "]"
	}
	return "(" + strings.Join(idx, ", ") + ")"
}

// ReadFile reads the float32 or float64 array in the .npy file at path, in
// either order, as float64 values in row-major (C) order, with its shape.
// Errors are *FileError values naming the file.
func ReadFile(path string) (data []float64, shape []int, err error) {
	a, err := openArray("", path)
	if err != nil {
		return nil, nil, err
	}
	defer a.close()
	data = make([]float64, a.h.Len())
	if err := ReadData(a.f, a.h, data); err != nil {
		return nil, nil, &FileError{Path: path, Err: err}
	}
	return data, a.h.Shape, nil
}

// Files names the .npy files of a recovery problem: the operator (either
// Sensing or Quadratic), the observations Y and, optionally, the truth.
// Files may hold float64 or float32 values, in C or Fortran order.
type Files struct {
	// Sensing holds the m matrices A_i of matrix sensing,
	// A_i(X) = <A_i, X>/m for X = L Rᵀ: shape (m, n1, n2), or (m, n1·n2)
	// with each matrix flattened in row-major order and N1, N2 set.
	Sensing string
	N1, N2  int

	// Quadratic holds the m vectors a_i of quadratic sampling,
	// A_i(X) = a_iᵀ X a_i / m for positive semidefinite X = L Lᵀ: shape
	// (m, n).
	Quadratic string

	// Y holds the observations y_i = A_i(X*) + w_i + s_i: shape (m,).
	Y string

	// Truth, optional, holds X*: shape (n1, n2).
	Truth string
}

// Load reads the files of a problem of recovering a rank-r matrix, checks
// that they agree, and returns the problem, ready for scaledsm.Solve.
//
// Every header is read and checked before any data, so a bad shape or rank
// is reported at once whatever the files' sizes; each file's data is then
// streamed into the one slice that the operator keeps (see ReadData), so a
// problem occupies the size of its files and no more: a float32 sensing
// file is kept as float32 (see scaledsm.NewSensing), the other files are
// read as float64. Errors about a file are
// *FileError values naming it; a rank out of range is a
// *scaledsm.InputError. NaN and infinite values are rejected.
func Load(f Files, rank int) (scaledsm.Problem, error) {
	return load(f, rank, nil)
}

// LoadShard is Load for the rank of red in a data-parallel solve (see
// ranks.Reducer): it reads the rows [rank·m/P, (rank+1)·m/P) of the
// operator and of y only, at their offsets in the files (which needs the
// operator file in C order), and returns that shard of the problem, its
// operator scaled as the whole problem's, with the truth read whole.
func LoadShard(f Files, rank int, red ranks.Reducer) (scaledsm.Problem, error) {
	return load(f, rank, red)
}

func load(f Files, rank int, red ranks.Reducer) (scaledsm.Problem, error) {
	switch {
	case f.Sensing == "" && f.Quadratic == "":
		return scaledsm.Problem{}, errors.New("dataio: no operator file: set Sensing or Quadratic")
	case f.Sensing != "" && f.Quadratic != "":
		return scaledsm.Problem{}, errors.New("dataio: both a sensing and a quadratic file: set one")
	case f.Y == "":
		return scaledsm.Problem{}, errors.New("dataio: no observations file Y")
	case f.N1 < 0 || f.N2 < 0:
		return scaledsm.Problem{}, fmt.Errorf("dataio: matrix shape %d×%d is negative", f.N1, f.N2)
	case f.Quadratic != "" && (f.N1 != 0 || f.N2 != 0):
		return scaledsm.Problem{}, errors.New("dataio: N1 and N2 apply to sensing files; a quadratic file's shape (m, n) gives n")
	}

	var op, y, truth *array
	defer func() { op.close(); y.close(); truth.close() }()
	var err error
	if f.Sensing != "" {
		op, err = openArray("sensing", f.Sensing)
	} else {
		op, err = openArray("quadratic", f.Quadratic)
	}
	if err != nil {
		return scaledsm.Problem{}, err
	}
	m, n1, n2, err := operatorShape(op, f)
	if err != nil {
		return scaledsm.Problem{}, err
	}
	if y, err = openArray("y", f.Y); err != nil {
		return scaledsm.Problem{}, err
	}
	if s := y.h.Shape; len(s) != 1 || s[0] != m {
		hint := ""
		if len(s) == 2 && (s[0] == 1 || s[1] == 1) && s[0]*s[1] == m {
			hint = " (a vector; flatten it, as with y.ravel() in NumPy)"
		}
		return scaledsm.Problem{}, y.fail("shape %s, want (%d,) for the %d measurements of %s%s", ShapeString(s), m, m, op.path, hint)
	}
	if f.Truth != "" {
		if truth, err = openArray("truth", f.Truth); err != nil {
			return scaledsm.Problem{}, err
		}
		if s := truth.h.Shape; len(s) != 2 || s[0] != n1 || s[1] != n2 {
			return scaledsm.Problem{}, truth.fail("shape %s, want (%d, %d) for the %d×%d matrices of %s", ShapeString(s), n1, n2, n1, n2, op.path)
		}
	}
	if rank < 1 || rank > min(n1, n2) {
		return scaledsm.Problem{}, &scaledsm.InputError{Input: "rank", Value: rank,
			Reason: fmt.Sprintf("must lie in [1, min(n1, n2)] = [1, %d] for the %d×%d matrices of %s", min(n1, n2), n1, n2, op.path)}
	}

	// A float32 sensing file is kept as float32, at its own size; the
	// operator computes in float64 from the stored values. (Quadratic
	// sampling data is small and kept as float64.)
	p := scaledsm.Problem{Rank: rank, Reducer: red}
	lo, hi := 0, m
	if red != nil {
		lo, hi = reduce.Range(m, red.Rank(), red.Size())
	}
	if f.Sensing != "" && op.float32() {
		a, err := readRows[float32](op, lo, hi)
		if err != nil {
			return scaledsm.Problem{}, err
		}
		var s *scaledsm.Sensing
		if s, err = scaledsm.NewSensing(hi-lo, n1, n2, a); err == nil {
			p.Op, err = shard(s, red, m)
		}
		if err != nil {
			return scaledsm.Problem{}, op.fail("%v", err)
		}
	} else {
		a, err := readRows[float64](op, lo, hi)
		if err != nil {
			return scaledsm.Problem{}, err
		}
		if f.Sensing != "" {
			var s *scaledsm.Sensing
			if s, err = scaledsm.NewSensing(hi-lo, n1, n2, a); err == nil {
				p.Op, err = shard(s, red, m)
			}
		} else {
			var q *scaledsm.Quadratic
			if q, err = scaledsm.NewQuadratic(hi-lo, n1, a); err == nil {
				p.Op, err = shard(q, red, m)
			}
		}
		if err != nil {
			return scaledsm.Problem{}, op.fail("%v", err)
		}
	}
	if p.Y, err = readRows[float64](y, lo, hi); err != nil {
		return scaledsm.Problem{}, err
	}
	if truth != nil {
		x, err := truth.read()
		if err != nil {
			return scaledsm.Problem{}, err
		}
		p.Truth = mat.NewDense(n1, n2, x)
	}
	return p, nil
}

// Size returns the memory, in bytes, that Load takes for the files (the
// size of their data as it is kept: a float32 sensing file as float32, the
// rest as float64, and quadratic sampling's transposed copy) and the number
// of observations m. It reads the headers only, so that a problem too big
// for the machine can be refused before any data is read; its errors are
// those of Load.
func (f Files) Size() (bytes int64, m int, err error) {
	for _, c := range []struct{ input, path string }{{"sensing", f.Sensing}, {"quadratic", f.Quadratic}, {"y", f.Y}, {"truth", f.Truth}} {
		if c.path == "" {
			continue
		}
		a, err := openArray(c.input, c.path)
		if err != nil {
			return 0, 0, err
		}
		if c.input == "y" {
			m = a.h.Len()
		}
		n := int64(a.h.Len()) * 8
		switch {
		case c.input == "sensing" && a.float32():
			n /= 2
		case c.input == "quadratic":
			n *= 2
		}
		a.close()
		bytes += n
	}
	return bytes, m, nil
}

// operatorShape returns the dimensions of the operator file's data.
func operatorShape(op *array, f Files) (m, n1, n2 int, err error) {
	s := op.h.Shape
	if f.Quadratic != "" {
		if len(s) != 2 {
			return 0, 0, 0, op.fail("shape %s, want (m, n): one sampling vector a_i per row", ShapeString(s))
		}
		m, n1, n2 = s[0], s[1], s[1]
	} else {
		switch len(s) {
		case 3:
			m, n1, n2 = s[0], s[1], s[2]
			if (f.N1 != 0 && f.N1 != n1) || (f.N2 != 0 && f.N2 != n2) {
				return 0, 0, 0, &FileError{Input: op.input, Path: op.path, Err: fmt.Errorf("%w: shape %s holds %d×%d matrices, not %d×%d", ErrMatrixShape, ShapeString(s), n1, n2, f.N1, f.N2)}
			}
		case 2:
			m, n1, n2 = s[0], f.N1, f.N2
			switch {
			case n1 == 0 || n2 == 0:
				return 0, 0, 0, &FileError{Input: op.input, Path: op.path, Err: fmt.Errorf("%w: shape %s holds each matrix flattened to %d values", ErrMatrixShape, ShapeString(s), s[1])}
			case n1*n2 != s[1]:
				return 0, 0, 0, &FileError{Input: op.input, Path: op.path, Err: fmt.Errorf("%w: shape %s holds matrices of %d values, not %d×%d = %d", ErrMatrixShape, ShapeString(s), s[1], n1, n2, n1*n2)}
			}
		default:
			return 0, 0, 0, op.fail("shape %s, want (m, n1, n2), or (m, n1·n2) with the matrices' shape", ShapeString(s))
		}
	}
	if m == 0 || n1 == 0 || n2 == 0 {
		return 0, 0, 0, op.fail("shape %s is empty", ShapeString(s))
	}
	return m, n1, n2, nil
}

// shard returns op as the shard of a problem of m measurements, or op
// itself alone.
func shard(op scaledsm.Operator, red ranks.Reducer, m int) (scaledsm.Operator, error) {
	if red == nil {
		return op, nil
	}
	return scaledsm.ShardOf(op, m)
}
