package dataio

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/scaledsm/scaledsm/completion"
)

// TestLoadEntriesCSR: the compressed rows read from the files are those
// NewEntries makes of LoadEntries's arrays, bit for bit, with the values
// as float64 and as float32 and the indices of any width; the errors name
// the file and the entry.
func TestLoadEntriesCSR(t *testing.T) {
	save := func(t *testing.T, path string, write func(io.Writer) error) {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	n1, n2 := 40, 30
	var rows, cols []int64
	var vals []float64
	for _, k := range rng.Perm(n1 * n2)[:500] {
		rows, cols, vals = append(rows, int64(k/n2)), append(cols, int64(k%n2)), append(vals, rng.NormFloat64())
	}
	dir := t.TempDir()
	f := EntryFiles{Rows: filepath.Join(dir, "r.npy"), Cols: filepath.Join(dir, "c.npy"), Values: filepath.Join(dir, "v.npy"), N1: n1, N2: n2}
	save(t, f.Rows, func(w io.Writer) error { return WriteInt64(w, []int{len(rows)}, rows) })
	r32 := make([]int32, len(cols))
	for k, c := range cols {
		r32[k] = int32(c)
	}
	save(t, f.Cols, func(w io.Writer) error { return WriteInt32(w, []int{len(r32)}, r32) })
	for _, f32 := range []bool{false, true} {
		if f32 {
			save(t, f.Values, func(w io.Writer) error { return WriteFloat32(w, []int{len(vals)}, vals) })
		} else {
			save(t, f.Values, func(w io.Writer) error { return WriteFloat64(w, []int{len(vals)}, vals) })
		}
		r, c, v, err := LoadEntries(f)
		if err != nil {
			t.Fatal(err)
		}
		want, wantY, err := completion.NewEntries(n1, n2, r, c, v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := LoadEntriesCSR(f)
		if err != nil {
			t.Fatal(err)
		}
		gotY := got.Y
		if f32 != (got.Y32 != nil) || f32 == (got.Y != nil) {
			t.Fatalf("float32 file %v: %d float64 and %d float32 values", f32, len(got.Y), len(got.Y32))
		}
		if f32 {
			gotY = make([]float64, len(got.Y32))
			for k, v := range got.Y32 {
				gotY[k] = float64(v)
			}
		}
		if !slices.Equal(got.Start, want.Start()) || !slices.Equal(got.Cols, want.Cols()) || !slices.Equal(gotY, wantY) {
			t.Errorf("float32 %v: the compressed rows differ from NewEntries's", f32)
		}
	}
	cols[7] = cols[3]
	rows[7] = rows[3]
	save(t, f.Rows, func(w io.Writer) error { return WriteInt64(w, []int{len(rows)}, rows) })
	save(t, f.Cols, func(w io.Writer) error { return WriteInt64(w, []int{len(cols)}, cols) })
	if _, err := LoadEntriesCSR(f); err == nil || !strings.Contains(err.Error(), "entries 3 and 7 are both") {
		t.Errorf("a duplicate: %v", err)
	}
	cols[9] = int64(n2)
	save(t, f.Cols, func(w io.Writer) error { return WriteInt64(w, []int{len(cols)}, cols) })
	if _, err := LoadEntriesCSR(f); err == nil || !strings.Contains(err.Error(), "entry [9] is 30, outside the 30 columns") {
		t.Errorf("a column outside: %v", err)
	}
}
