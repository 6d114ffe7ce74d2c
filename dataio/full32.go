package dataio

import "github.com/scaledsm/scaledsm/completion"

// Full32Shape returns the shape (n1, n2) of the matrix in the .npy file at
// path, reading only its header: what ReadFull32 would hold, to be
// checked against the memory before it is read. input names the flag or
// argument of its errors.
func Full32Shape(input, path string) (n1, n2 int, err error) {
	a, err := openFullHeader(input, path)
	if err != nil {
		return 0, 0, err
	}
	a.close()
	return a.h.Shape[0], a.h.Shape[1], nil
}

// ReadFull32 reads the float32 or float64 matrix in the .npy file at
// path, in either order, as float32 values row by row: every entry of a
// robust PCA (completion.SolveSampled). A float64 file is rounded as it is
// read, never held whole. A NaN or infinite entry is an error naming it.
func ReadFull32(input, path string) (completion.Full32, error) {
	a, err := openFullHeader(input, path)
	if err != nil {
		return completion.Full32{}, err
	}
	defer a.close()
	y, err := readAs[float32](a)
	if err != nil {
		return completion.Full32{}, err
	}
	return completion.Full32{N1: a.h.Shape[0], N2: a.h.Shape[1], Y: y}, nil
}

// openFullHeader opens the .npy file of a non-empty matrix.
func openFullHeader(input, path string) (*array, error) {
	a, err := openArray(input, path)
	if err != nil {
		return nil, err
	}
	if s := a.h.Shape; len(s) != 2 || s[0] == 0 || s[1] == 0 {
		a.close()
		return nil, a.fail("shape %s: want a non-empty matrix (n1, n2)", ShapeString(s))
	}
	return a, nil
}
