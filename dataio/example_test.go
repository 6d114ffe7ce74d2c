package dataio_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/dataio"
)

// Read a matrix sensing problem from NumPy files, as numpy.save or
// "scaledsm generate" write them, and recover its matrix. The files here
// were written by
//
//	scaledsm generate --problem ms --n 10 --n2 8 --r 2 --ps 0.1 --seed 7 --out testdata/example
func ExampleLoad() {
	p, err := dataio.Load(dataio.Files{
		Sensing: "testdata/example/A.npy",      // the matrices A_i: shape (m, n1, n2)
		Y:       "testdata/example/y.npy",      // the observations: shape (m,)
		Truth:   "testdata/example/X_star.npy", // optional: X*, to measure the error
	}, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := scaledsm.Solve(context.Background(), p, scaledsm.Settings{
		Step:       scaledsm.Geometric{Lambda: 2, Q: 0.9}, // f(X*) is not known: no Polyak steps
		Truncation: scaledsm.TruncateFraction(0.1),        // about 10% of the measurements are outliers
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	m, n1, n2 := p.Op.Dims()
	fmt.Printf("m=%d measurements of a %d×%d matrix of rank %d\n", m, n1, n2, p.Rank)
	fmt.Printf("%v, relative error below 1e-10: %v\n", res.Status, res.RelError < 1e-10)
	// Output:
	// m=144 measurements of a 10×8 matrix of rank 2
	// converged, relative error below 1e-10: true
}

// A file that is missing, truncated, corrupted or of the wrong shape is one
// error naming the input, the file and the reason.
func ExampleFileError() {
	_, err := dataio.Load(dataio.Files{
		Sensing: "testdata/example/A.npy",
		Y:       "testdata/example/X_star.npy", // a 10×8 matrix, not the 144 observations
	}, 2)
	fmt.Println(err)
	// Output:
	// y file testdata/example/X_star.npy: shape (10, 8), want (144,) for the 144 measurements of testdata/example/A.npy
}

// Write an array as NumPy does; numpy.load reads it back.
func ExampleWriteFloat64() {
	var b bytes.Buffer
	if err := dataio.WriteFloat64(&b, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6}); err != nil {
		fmt.Println(err)
		return
	}
	h, err := dataio.ReadHeader(&b)
	if err != nil {
		fmt.Println(err)
		return
	}
	x := make([]float64, h.Len())
	if err := dataio.ReadData(&b, h, x); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(h.Dtype, dataio.ShapeString(h.Shape), h.HeaderSize(), x)
	// Output: <f8 (2, 3) 128 [1 2 3 4 5 6]
}

// Read a ratings file as a recommender holds it: int32 indices of the
// users and items (in the order of their ids) and float32 values.
func ExampleReadRatings32() {
	dir, err := os.MkdirTemp("", "ratings")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "ratings.csv")
	if err := os.WriteFile(path, []byte("userId,movieId,rating,timestamp\n7,50,4.5,0\n3,50,3,0\n7,20,0.5,0\n"), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	r, err := dataio.ReadRatings32(path, dataio.Layout{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.RowIDs, r.ColIDs)
	fmt.Println(r.Rows, r.Cols, r.Values)
	// Output:
	// [3 7] [20 50]
	// [1 0 1] [1 1 0] [4.5 3 0.5]
}
