package dataio

import (
	"fmt"
	"os"
	"runtime"
	"sync"
)

// partBytes is the least size of a part of a ratings file read on a core
// of its own: a file under twice it is read on one. Jester's shape (28 MB,
// 1.08 × 10^6 ratings) read in two parts took 0.95 and 0.97 of the whole
// fit's wall time against one (five pairs each, the 2-core AMD EPYC), the
// peak the same.
const partBytes = 4 << 20

// readWhole reads a whole ratings file into values of type V, the same
// ratings and indices as readRatings of its one part, but a large file in
// parts on the cores (10^8 lines: 17 s on one core of this 2-core Xeon).
// The parts are the byte ranges of ReadRatings32Part; each counts its
// lines, then parses its ratings into its own span of the slices made
// for all of them, its ids numbered among its own; the ids of the parts
// are then merged and each part's renumbered, and the spans moved
// together. The slices are made once, so that the ratings are held once
// as they are read.
func readWhole[V float32 | float64](path string, layout Layout) (*RatingsOf[V], error) {
	parts := 1
	if st, err := os.Stat(path); err == nil {
		parts = int(min(int64(runtime.GOMAXPROCS(0)), st.Size()/partBytes))
	}
	return readParts[V](path, layout, parts)
}

// readParts is readWhole in the given number of parts.
func readParts[V float32 | float64](path string, layout Layout, parts int) (*RatingsOf[V], error) {
	if parts <= 1 {
		return readRatings[V](path, layout, 0, 1)
	}
	lines := make([]int, parts)
	var counted sync.WaitGroup
	counted.Add(parts)
	made := make(chan struct{})
	var rows, cols []int32
	var values []V
	go func() {
		counted.Wait()
		total := 0
		for _, n := range lines {
			total += n
		}
		rows, cols, values = make([]int32, total), make([]int32, total), make([]V, total)
		close(made)
	}()
	got := make([]*RatingsOf[V], parts)
	errs := make([]error, parts)
	var done sync.WaitGroup
	for p := range parts {
		done.Go(func() {
			asked := false
			got[p], errs[p] = readInto(path, layout, p, parts, func(n int) ([]int32, []int32, []V) {
				asked = true
				lines[p] = n
				counted.Done()
				<-made
				at := 0
				for _, n := range lines[:p] {
					at += n
				}
				return rows[at : at : at+n], cols[at : at : at+n], values[at : at : at+n]
			})
			if !asked { // failed before it counted: it holds no span
				counted.Done()
			}
		})
	}
	done.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err // the first part's that failed, as one reader would fail
		}
	}
	for p, r := range got {
		if len(r.Rows) > lines[p] { // more ratings than its lines: the file grew as it was read
			return nil, &FileError{Input: "ratings", Path: path, Err: fmt.Errorf("changed while it was read")}
		}
	}
	rt := &RatingsOf[V]{}
	rt.RowIDs = mergeIDs(got, func(r *RatingsOf[V]) ([]int64, []int32) { return r.RowIDs, r.Rows })
	rt.ColIDs = mergeIDs(got, func(r *RatingsOf[V]) ([]int64, []int32) { return r.ColIDs, r.Cols })
	if max(len(rt.RowIDs), len(rt.ColIDs)) > 1<<31-1 {
		return nil, &FileError{Input: "ratings", Path: path, Err: fmt.Errorf("more than 2^31 distinct ids")}
	}
	n := 0
	for _, r := range got { // the spans moved together, in order
		n += copy(rows[n:], r.Rows)
		copy(cols[n-len(r.Rows):], r.Cols)
		copy(values[n-len(r.Rows):], r.Values)
	}
	if n == 0 {
		return nil, &FileError{Input: "ratings", Path: path, Err: fmt.Errorf("no ratings after the header line")}
	}
	rt.Rows, rt.Cols, rt.Values = rows[:n:n], cols[:n:n], values[:n:n]
	return rt, nil
}

// mergeIDs returns the ids of all the parts in increasing order (each
// part's ids, of side, increasing), and renumbers each part's indices
// into its ids to indices into them, the parts on the cores.
func mergeIDs[V float32 | float64](parts []*RatingsOf[V], side func(*RatingsOf[V]) ([]int64, []int32)) []int64 {
	var all []int64
	for _, r := range parts {
		ids, _ := side(r)
		all = mergeSorted(all, ids)
	}
	var wg sync.WaitGroup
	for _, r := range parts {
		wg.Go(func() {
			ids, idx := side(r)
			at := make([]int32, len(ids))
			j := 0
			for k, id := range ids { // both increasing
				for all[j] < id {
					j++
				}
				at[k] = int32(j)
			}
			for e, k := range idx {
				idx[e] = at[k]
			}
		})
	}
	wg.Wait()
	return all
}

// mergeSorted returns the union of two increasing lists of distinct ids.
func mergeSorted(a, b []int64) []int64 {
	out := make([]int64, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}
