package dataio

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Ratings are the entries of a ratings file: Rows[k], Cols[k] and
// Values[k] for the k-th rating in file order, the ids mapped to indices
// in increasing order of id (row i is the user RowIDs[i], column j the
// item ColIDs[j]).
type Ratings struct {
	Rows, Cols     []int32
	Values         []float64
	RowIDs, ColIDs []int64
}

// ratingColumns are the columns a ratings file must have, by header name,
// in the MovieLens layout userId,movieId,rating[,timestamp].
var ratingColumns = [...]string{"userId", "movieId", "rating"}

// openCSV opens a CSV file for reading record by record.
func openCSV(input, path string) (*os.File, *csv.Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, &FileError{Input: input, Path: path, Err: fmt.Errorf("cannot open: %w", unwrapPathErr(err))}
	}
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	r.TrimLeadingSpace = true
	return f, r, nil
}

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// csvError words an error of encoding/csv, which names the line itself.
func csvError(input, path string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &FileError{Input: input, Path: path, Err: fmt.Errorf("line %d: %v", pe.Line, pe.Err)}
	}
	return &FileError{Input: input, Path: path, Err: readError(err)}
}

// RatingsSize returns an upper bound on the number of ratings in the file
// at path, its number of lines, counted without parsing them, so that a
// file too big for the machine can be refused before it is read.
func RatingsSize(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, &FileError{Input: "ratings", Path: path, Err: fmt.Errorf("cannot open: %w", unwrapPathErr(err))}
	}
	defer f.Close()
	buf := make([]byte, chunkBytes)
	lines := 1
	for {
		k, err := f.Read(buf)
		lines += bytes.Count(buf[:k], []byte{'\n'})
		if err == io.EOF {
			return lines, nil
		}
		if err != nil {
			return 0, &FileError{Input: "ratings", Path: path, Err: readError(err)}
		}
	}
}

// ReadRatings reads a ratings file in the MovieLens layout: a header line
// naming the columns userId, movieId and rating (in any order, among
// others such as timestamp), then one rating per line. The ids are
// integers and the ratings finite numbers. Errors are *FileError values
// naming the line at fault.
func ReadRatings(path string) (*Ratings, error) {
	const input = "ratings"
	f, r, err := openCSV(input, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fail := func(format string, args ...any) error {
		return &FileError{Input: input, Path: path, Err: fmt.Errorf(format, args...)}
	}
	head, err := r.Read()
	if err == io.EOF {
		return nil, fail("empty: want a header line %s", strings.Join(ratingColumns[:], ","))
	}
	if err != nil {
		return nil, csvError(input, path, err)
	}
	var at [len(ratingColumns)]int
	for c, name := range ratingColumns {
		at[c] = slices.IndexFunc(head, func(h string) bool { return strings.EqualFold(strings.TrimSpace(h), name) })
		if at[c] < 0 {
			return nil, fail("line 1: the header %q has no %s column (want %s[,timestamp])", strings.Join(head, ","), name, strings.Join(ratingColumns[:], ","))
		}
	}
	need := slices.Max(at[:]) + 1
	// Sized from the lines, counted first, so that the slices do not grow
	// by copies (a third of the time of a large file).
	lines, err := RatingsSize(path)
	if err != nil {
		return nil, err
	}
	users, items, values := make([]int64, 0, lines), make([]int64, 0, lines), make([]float64, 0, lines)
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(input, path, err)
		}
		line, _ := r.FieldPos(0)
		if len(rec) < need {
			return nil, fail("line %d: %d fields, want %d (%s)", line, len(rec), need, strings.Join(head[:need], ","))
		}
		var ids [2]int64
		for c := range 2 {
			s := strings.TrimSpace(rec[at[c]])
			if ids[c], err = strconv.ParseInt(s, 10, 64); err != nil {
				return nil, fail("line %d: %s %q is not an integer", line, ratingColumns[c], s)
			}
		}
		s := strings.TrimSpace(rec[at[2]])
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fail("line %d: rating %q is not a number", line, s)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fail("line %d: rating %q is not finite", line, s)
		}
		users = append(users, ids[0])
		items = append(items, ids[1])
		values = append(values, v)
	}
	if len(values) == 0 {
		return nil, fail("no ratings after the header line")
	}
	rt := &Ratings{Values: values}
	rt.Rows, rt.RowIDs = mapIDs(users)
	rt.Cols, rt.ColIDs = mapIDs(items)
	if len(rt.RowIDs) > math.MaxInt32 || len(rt.ColIDs) > math.MaxInt32 {
		return nil, fail("more than 2^31 distinct ids")
	}
	return rt, nil
}

// mapIDs returns the index of each id among the distinct ids sorted
// increasingly, and those ids.
func mapIDs(ids []int64) ([]int32, []int64) {
	uniq := slices.Clone(ids)
	slices.Sort(uniq)
	uniq = slices.Compact(uniq)
	idx := make([]int32, len(ids))
	if lo, hi := uniq[0], uniq[len(uniq)-1]; hi-lo >= 0 && hi-lo < int64(4*len(ids)+1<<20) {
		// Ids of a modest range, as MovieLens's: a table is faster than a
		// search.
		table := make([]int32, hi-lo+1)
		for i, id := range uniq {
			table[id-lo] = int32(i)
		}
		for k, id := range ids {
			idx[k] = table[id-lo]
		}
		return idx, slices.Clip(uniq)
	}
	for k, id := range ids {
		i, _ := slices.BinarySearch(uniq, id)
		idx[k] = int32(i)
	}
	return idx, slices.Clip(uniq)
}

// RecordLines returns the line of each of the given data records (0 is the
// first record after the header line) of a CSV file, for messages about
// them.
func RecordLines(path string, records ...int) ([]int, error) {
	f, r, err := openCSV("", path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lines := make([]int, len(records))
	want := slices.Max(records)
	for k := -1; k <= want; k++ {
		if _, err := r.Read(); err != nil {
			return nil, csvError("", path, err)
		}
		line, _ := r.FieldPos(0)
		for i, rec := range records {
			if rec == k {
				lines[i] = line
			}
		}
	}
	return lines, nil
}

// Pairs are the (row, column) pairs of a predict request, in file order;
// Lines, for a CSV file, gives the line of each.
type Pairs struct {
	Rows, Cols []int64
	Lines      []int
}

// ReadPairs reads pairs from a .npy file of integers of shape (m, 2), or
// from a CSV file whose first two columns are integers (a header line, if
// any, is skipped; further columns are ignored). Errors are *FileError
// values naming the line or the element at fault.
func ReadPairs(path string) (*Pairs, error) {
	const input = "pairs"
	if strings.EqualFold(filepath.Ext(path), ".npy") {
		data, shape, err := ReadInts(path)
		if err != nil {
			if fe, ok := err.(*FileError); ok {
				fe.Input = input
			}
			return nil, err
		}
		if len(shape) != 2 || shape[1] != 2 {
			return nil, &FileError{Input: input, Path: path, Err: fmt.Errorf("shape %s: want (m, 2), one (row, column) pair per row", ShapeString(shape))}
		}
		p := &Pairs{Rows: make([]int64, shape[0]), Cols: make([]int64, shape[0])}
		for k := range shape[0] {
			p.Rows[k], p.Cols[k] = data[2*k], data[2*k+1]
		}
		return p, nil
	}
	f, r, err := openCSV(input, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p := &Pairs{}
	for first := true; ; first = false {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(input, path, err)
		}
		line, _ := r.FieldPos(0)
		if len(rec) < 2 {
			return nil, &FileError{Input: input, Path: path, Err: fmt.Errorf("line %d: %d field, want two: row,column", line, len(rec))}
		}
		var ij [2]int64
		var bad error
		for c := range 2 {
			s := strings.TrimSpace(rec[c])
			if ij[c], err = strconv.ParseInt(s, 10, 64); err != nil && bad == nil {
				bad = fmt.Errorf("line %d: %q is not an integer", line, s)
			}
		}
		if bad != nil {
			if first {
				continue // a header line
			}
			return nil, &FileError{Input: input, Path: path, Err: bad}
		}
		p.Rows = append(p.Rows, ij[0])
		p.Cols = append(p.Cols, ij[1])
		p.Lines = append(p.Lines, line)
	}
	return p, nil
}
