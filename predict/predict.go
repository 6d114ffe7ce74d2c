// Package predict predicts entries from what a solve saved in a
// directory: a recommender (model.json, see package recommend) or the
// factors of a low-rank fit (L.npy and R.npy, R.npy absent for X = L Lᵀ),
// with the ids of the rows and the columns when the entries had ids
// (row_ids.npy and col_ids.npy, as solve --ratings --model lowrank writes
// them). Load returns either as a Model; Write writes the predictions as a
// NumPy or a CSV file.
package predict

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/completion"
	"github.com/scaledsm/scaledsm/dataio"
	"github.com/scaledsm/scaledsm/internal/atomicio"
	"github.com/scaledsm/scaledsm/internal/csvfmt"
	"github.com/scaledsm/scaledsm/internal/obs"
	"github.com/scaledsm/scaledsm/recommend"
)

// A Model predicts entries of a saved fit.
type Model interface {
	// Predict returns the prediction of each pair (rows[k], cols[k]):
	// ids, or for factors without ids, indices. A pair it cannot predict
	// is a *PairError.
	Predict(rows, cols []int64) (Predictions, error)
}

// Predictions are the predictions of pairs, in the pairs' order.
type Predictions struct {
	Values []float64
	// Unseen counts the pairs with a row or a column that the fit did not
	// have, which a recommender predicts from what it has of them (the
	// biases, the mean at worst).
	Unseen int
	// Header names the columns of the CSV file Write writes:
	// "userId,movieId,prediction" for a recommender, "row,col,prediction"
	// for factors.
	Header string
}

// A LoadError is a saved fit that cannot be read: Err names the file in
// Dir and the reason.
type LoadError struct {
	Dir string
	Err error
}

func (e *LoadError) Error() string { return e.Dir + ": " + e.Err.Error() }
func (e *LoadError) Unwrap() error { return e.Err }

// A PairError is a pair that a Model cannot predict: its index, and why.
type PairError struct {
	Pair   int
	Reason string
}

func (e *PairError) Error() string { return e.Reason }

// Load reads the fit saved in dir: a recommender when dir holds its
// model.json, the factors L.npy and R.npy otherwise.
func Load(dir string) (Model, error) {
	if recommend.IsModel(dir) {
		m, err := recommend.Load(dir)
		if err != nil {
			var ie *recommend.InputError
			if errors.As(err, &ie) {
				return nil, &LoadError{dir, fmt.Errorf("%s: %s", filepath.Base(ie.Input), ie.Reason)}
			}
			return nil, err
		}
		return Recommender{m}, nil
	}
	return LoadFactors(dir)
}

// Recommender predicts ratings with a recommender model.
type Recommender struct{ *recommend.Model }

// Predict predicts the ratings of the pairs (users[k], items[k]).
func (r Recommender) Predict(users, items []int64) (Predictions, error) {
	p := Predictions{Values: r.PredictAll(users, items, nil), Header: "userId,movieId,prediction"}
	for k := range users {
		if u, i := r.Known(users[k], items[k]); !u || !i {
			p.Unseen++
		}
	}
	return p, nil
}

// Factors are the factors of X = L Rᵀ (R = L for X = L Lᵀ) and, when the
// entries had ids, the increasing ids of the rows and of the columns.
type Factors struct {
	L, R           *mat.Dense
	RowIDs, ColIDs []int64
	Dir            string // where they were read, for the errors' words
}

// LoadFactors reads the factors saved in dir, and their ids when dir
// holds row_ids.npy.
func LoadFactors(dir string) (*Factors, error) {
	f := &Factors{Dir: dir}
	var err error
	if f.L, err = readFactor(dir, "L.npy"); err != nil {
		return nil, err
	}
	f.R = f.L
	if _, err := os.Stat(filepath.Join(dir, "R.npy")); err == nil {
		if f.R, err = readFactor(dir, "R.npy"); err != nil {
			return nil, err
		}
	}
	n1, k := f.L.Dims()
	n2, k2 := f.R.Dims()
	if k != k2 {
		return nil, &LoadError{dir, fmt.Errorf("the factors L.npy and R.npy have %d and %d columns", k, k2)}
	}
	if _, err := os.Stat(filepath.Join(dir, "row_ids.npy")); err == nil {
		if f.RowIDs, err = readIDs(dir, "row_ids.npy", n1); err != nil {
			return nil, err
		}
		if f.ColIDs, err = readIDs(dir, "col_ids.npy", n2); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// Predict returns the entries (rows[k], cols[k]) of L Rᵀ.
func (f *Factors) Predict(rows, cols []int64) (Predictions, error) {
	n1, _ := f.L.Dims()
	n2, _ := f.R.Dims()
	p := Predictions{Values: make([]float64, len(rows)), Header: "row,col,prediction"}
	for k := range rows {
		i, err := f.index(rows[k], f.RowIDs, n1, "row", k)
		if err != nil {
			return p, err
		}
		j, err := f.index(cols[k], f.ColIDs, n2, "col", k)
		if err != nil {
			return p, err
		}
		p.Values[k] = scaledsm.Factors{L: f.L, R: f.R}.At(i, j)
	}
	return p, nil
}

// index returns the index of the row or column v of pair k: its place
// among the ids, or v itself within the n of the factors.
func (f *Factors) index(v int64, ids []int64, n int, what string, k int) (int, error) {
	if ids != nil {
		i, ok := slices.BinarySearch(ids, v)
		if !ok {
			return 0, &PairError{k, fmt.Sprintf("%s id %d is not in the factors' %ss (%s)", what, v, what, filepath.Join(f.Dir, what[:3]+"_ids.npy"))}
		}
		return i, nil
	}
	if v < 0 || v >= int64(n) {
		return 0, &PairError{k, fmt.Sprintf("%s %d lies outside the %d %ss of the factors", what, v, n, what)}
	}
	return int(v), nil
}

// WriteHeldOut writes the entries held out of a fit as CSV with the
// factors' predictions of them: a header, then "row,col,value,prediction"
// a line (with the ids of the rows and columns when given,
// "userId,movieId,rating,prediction").
func WriteHeldOut(w io.Writer, f scaledsm.Factors, held completion.HeldOut, rowIDs, colIDs []int64) error {
	head := "row,col,value,prediction\n"
	if rowIDs != nil {
		head = "userId,movieId,rating,prediction\n"
	}
	if _, err := io.WriteString(w, head); err != nil {
		return err
	}
	return csvfmt.WriteLines(w, len(held.Y), func(dst []byte, k int) []byte {
		i, j := int(held.Rows[k]), int(held.Cols[k])
		ri, cj := int64(i), int64(j)
		if rowIDs != nil {
			ri, cj = rowIDs[i], colIDs[j]
		}
		dst = strconv.AppendInt(dst, ri, 10)
		dst = append(dst, ',')
		dst = strconv.AppendInt(dst, cj, 10)
		dst = append(dst, ',')
		dst = csvfmt.AppendFloat(dst, held.Y[k])
		dst = append(dst, ',')
		dst = csvfmt.AppendFloat(dst, f.At(i, j))
		return append(dst, '\n')
	})
}

// Write writes the predictions of the pairs (rows[k], cols[k]) to path,
// atomically: a .npy file of float64 values, shape (m,), or a .csv file
// with p's header and a line "row,col,prediction" for each pair. The
// pairs are as many as the predictions.
func Write(path string, rows, cols []int64, p Predictions) error {
	if len(rows) != len(p.Values) || len(cols) != len(p.Values) {
		return fmt.Errorf("predict: %d rows and %d columns for %d predictions: want a pair each", len(rows), len(cols), len(p.Values))
	}
	write := func(w io.Writer) error { return dataio.WriteFloat64(w, []int{len(p.Values)}, p.Values) }
	if strings.EqualFold(filepath.Ext(path), ".csv") {
		write = func(w io.Writer) error {
			if _, err := io.WriteString(w, p.Header+"\n"); err != nil {
				return err
			}
			return csvfmt.WriteLines(w, len(p.Values), func(dst []byte, k int) []byte {
				dst = strconv.AppendInt(dst, rows[k], 10)
				dst = append(dst, ',')
				dst = strconv.AppendInt(dst, cols[k], 10)
				dst = append(dst, ',')
				return append(csvfmt.AppendFloat(dst, p.Values[k]), '\n')
			})
		}
	}
	return atomicio.WriteFile(path, write)
}

// readFactor reads a factor matrix of the fit in dir.
func readFactor(dir, name string) (*mat.Dense, error) {
	data, shape, err := dataio.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil, &LoadError{dir, fmt.Errorf("%s: %v", name, dataio.Reason(err))}
	}
	if len(shape) != 2 || shape[0] == 0 || shape[1] == 0 {
		return nil, &LoadError{dir, fmt.Errorf("%s has shape %s, want a factor (n, r)", name, dataio.ShapeString(shape))}
	}
	if k := obs.FirstNonFinite(data); k >= 0 { // a prediction of it would be NaN, not a number
		return nil, &LoadError{dir, fmt.Errorf("%s: entry (%d, %d) is %v", name, k/shape[1], k%shape[1], data[k])}
	}
	return mat.NewDense(shape[0], shape[1], data), nil
}

// readIDs reads the increasing ids of the n rows or columns of the
// factors.
func readIDs(dir, name string, n int) ([]int64, error) {
	ids, shape, err := dataio.ReadInts(filepath.Join(dir, name))
	if err != nil {
		return nil, &LoadError{dir, fmt.Errorf("%s: %v", name, dataio.Reason(err))}
	}
	if len(shape) != 1 || shape[0] != n {
		return nil, &LoadError{dir, fmt.Errorf("%s has shape %s, want (%d,) for the factors' %d rows", name, dataio.ShapeString(shape), n, n)}
	}
	for k := 1; k < n; k++ {
		if ids[k] <= ids[k-1] {
			return nil, &LoadError{dir, fmt.Errorf("%s is not increasing at [%d]", name, k)}
		}
	}
	return ids, nil
}
