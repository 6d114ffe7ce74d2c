package dataio

import (
	"errors"
	"io"
	"slices"
	"sync"
	"testing"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/ranks"
	"github.com/scaledsm/scaledsm/synth"
)

// TestLoadShard reads the files of a sensing and a quadratic problem (the
// sensing one as float32 too) on 1 to 3 in-process ranks: each rank's
// operator data and observations are its rows of the whole problem's, at
// their offsets, the shards follow each other and cover every row, and each
// operator scales as the whole one (its residuals at the truth are the
// whole problem's).
func TestLoadShard(t *testing.T) {
	dir := t.TempDir()
	ms := instance(t, synth.Sensing, 5, 4, 2, 0.1)
	qs := instance(t, synth.Quadratic, 6, 6, 2, 0.1)
	a := opData(ms.Op)
	a32 := make([]float32, len(a))
	for i, v := range a {
		a32[i] = float32(v)
	}
	m, n := len(ms.Y), 20
	cases := []struct {
		name  string
		files Files
		whole *synth.Instance
		width int
	}{
		{"sensing", Files{Sensing: save(t, dir, "A.npy", f64([]int{m, 5, 4}, a)), Y: save(t, dir, "y.npy", f64([]int{m}, ms.Y))}, ms, n},
		{"sensing32", Files{Sensing: save(t, dir, "A32.npy", func(w io.Writer) error { return WriteArray(w, Header{Dtype: "<f4", Shape: []int{m, n}}, a32) }), N1: 5, N2: 4, Y: save(t, dir, "y.npy", f64([]int{m}, ms.Y))}, ms, n},
		{"quadratic", Files{Quadratic: save(t, dir, "Q.npy", f64([]int{len(qs.Y), 6}, opData(qs.Op))), Y: save(t, dir, "yq.npy", f64([]int{len(qs.Y)}, qs.Y))}, qs, 6},
	}
	for _, c := range cases {
		whole, err := Load(c.files, 2)
		if err != nil {
			t.Fatal(err)
		}
		m := len(whole.Y)
		data := opData(whole.Op)
		for p := 1; p <= 3; p++ {
			reds := ranks.NewLocal(p)
			probs := make([]scaledsm.Problem, p)
			errs := make([]error, p)
			var wg sync.WaitGroup
			for k := range p {
				wg.Go(func() { probs[k], errs[k] = LoadShard(c.files, 2, reds[k]) })
			}
			wg.Wait()
			next := 0
			for k, pr := range probs {
				if errs[k] != nil {
					t.Fatalf("%s, rank %d of %d: %v", c.name, k, p, errs[k])
				}
				rows := len(pr.Y)
				if !slices.Equal(pr.Y, whole.Y[next:next+rows]) || !slices.Equal(opData(pr.Op), data[next*c.width:(next+rows)*c.width]) {
					t.Errorf("%s, rank %d of %d: not rows [%d, %d) of the whole problem", c.name, k, p, next, next+rows)
				}
				// The residuals at the truth: the whole problem's rows.
				z := make([]float64, rows)
				pr.Op.Apply(z, c.whole.Star)
				zw := make([]float64, m)
				whole.Op.Apply(zw, c.whole.Star)
				if !slices.Equal(z, zw[next:next+rows]) {
					t.Errorf("%s, rank %d of %d: the shard does not scale as the whole problem", c.name, k, p)
				}
				next += rows
			}
			if next != m {
				t.Errorf("%s, %d ranks: the shards hold %d rows of %d", c.name, p, next, m)
			}
		}
	}
}

// TestLoadShardFortran refuses a shard of a Fortran-order operator file,
// whose rows are not contiguous, naming the file.
func TestLoadShardFortran(t *testing.T) {
	dir := t.TempDir()
	ms := instance(t, synth.Sensing, 3, 3, 1, 0)
	m := len(ms.Y)
	a := opData(ms.Op)
	f := Files{
		Sensing: save(t, dir, "A.npy", func(w io.Writer) error {
			return WriteArray(w, Header{Dtype: "<f8", Fortran: true, Shape: []int{m, 9}}, fortran(a, m, 9))
		}),
		N1: 3, N2: 3, Y: save(t, dir, "y.npy", f64([]int{m}, ms.Y)),
	}
	reds := ranks.NewLocal(2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for k := range 2 {
		wg.Go(func() { _, errs[k] = LoadShard(f, 1, reds[k]) })
	}
	wg.Wait()
	var fe *FileError
	if !errors.As(errs[1], &fe) || fe.Input != "sensing" {
		t.Fatalf("rank 1: %v, want a FileError naming the sensing file", errs[1])
	}
}

// fortran returns the rows×cols row-major data in column-major order.
func fortran(a []float64, rows, cols int) []float64 {
	out := make([]float64, len(a))
	for i := range rows {
		for j := range cols {
			out[j*rows+i] = a[i*cols+j]
		}
	}
	return out
}
