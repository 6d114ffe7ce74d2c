package dataio

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/synth"
)

// save writes a file in dir through write and returns its path.
func save(t testing.TB, dir, name string, write func(io.Writer) error) string {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func f64(shape []int, data []float64) func(io.Writer) error {
	return func(w io.Writer) error { return WriteFloat64(w, shape, data) }
}

func raw(b []byte) func(io.Writer) error {
	return func(w io.Writer) error { _, err := w.Write(b); return err }
}

// instance draws a small synthetic problem.
func instance(t testing.TB, kind synth.Kind, n1, n2, r int, ps float64) *synth.Instance {
	t.Helper()
	d, err := synth.New(synth.Config{Kind: kind, N1: n1, N2: n2, Rank: r, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	in, err := d.Instance(synth.Setting{Kappa: 5, PS: ps, SNR: math.Inf(1)})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// opData returns the operator's stored values as float64, whether it keeps
// them as float64 or (sensing) as float32.
func opData(op scaledsm.Operator) []float64 {
	if s, ok := op.(*scaledsm.Sensing); ok && s.Data32() != nil {
		out := make([]float64, len(s.Data32()))
		for i, v := range s.Data32() {
			out[i] = float64(v)
		}
		return out
	}
	return op.(interface{ Data() []float64 }).Data()
}

// TestLoad reads problems written in every layout the reader supports and
// checks that the operator, observations and truth are those written.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	ms := instance(t, synth.Sensing, 4, 6, 2, 0.1)
	qs := instance(t, synth.Quadratic, 7, 7, 2, 0.1)
	msData, qsData := opData(ms.Op), opData(qs.Op)
	m, _, _ := ms.Op.Dims()
	mq, _, _ := qs.Op.Dims()
	round32 := func(v []float64) []float64 {
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = float64(float32(x))
		}
		return out
	}
	y := save(t, dir, "y.npy", f64([]int{m}, ms.Y))
	truth := save(t, dir, "X.npy", f64([]int{4, 6}, ms.Truth.RawMatrix().Data))
	yq := save(t, dir, "yq.npy", f64([]int{mq}, qs.Y))
	cases := []struct {
		name  string
		files Files
		want  []float64
	}{
		{"sensing 3-D", Files{Sensing: save(t, dir, "a3.npy", f64([]int{m, 4, 6}, msData))}, msData},
		{"sensing 3-D with its shape", Files{Sensing: save(t, dir, "a3.npy", f64([]int{m, 4, 6}, msData)), N1: 4, N2: 6}, msData},
		{"sensing 2-D", Files{Sensing: save(t, dir, "a2.npy", f64([]int{m, 24}, msData)), N1: 4, N2: 6}, msData},
		{"sensing Fortran", Files{Sensing: save(t, dir, "af.npy", raw(fortranFile(t, "<f8", []int{m, 4, 6}, msData)))}, msData},
		{"sensing 2-D Fortran float32", Files{Sensing: save(t, dir, "af32.npy", raw(fortranFile(t, "<f4", []int{m, 24}, msData))), N1: 4, N2: 6}, round32(msData)},
		{"sensing float32", Files{Sensing: save(t, dir, "a32.npy", func(w io.Writer) error { return WriteFloat32(w, []int{m, 4, 6}, msData) })}, round32(msData)},
		{"quadratic", Files{Quadratic: save(t, dir, "q.npy", f64([]int{mq, 7}, qsData)), Y: yq}, qsData},
		{"quadratic Fortran", Files{Quadratic: save(t, dir, "qf.npy", raw(fortranFile(t, "<f8", []int{mq, 7}, qsData))), Y: yq}, qsData},
	}
	for _, c := range cases {
		f := c.files
		wantY, wantTruth := qs.Y, qs.Truth
		if f.Sensing != "" {
			f.Y, f.Truth = y, truth
			wantY, wantTruth = ms.Y, ms.Truth
		} else {
			f.Truth = save(t, dir, "Xq.npy", f64([]int{7, 7}, qs.Truth.RawMatrix().Data))
		}
		p, err := Load(f, 2)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(opData(p.Op), c.want) || !slices.Equal(p.Y, wantY) || !mat.Equal(p.Truth, wantTruth) || p.Rank != 2 {
			t.Errorf("%s: the problem read differs from the one written", c.name)
		}
		if p.Op.Symmetric() != (f.Quadratic != "") {
			t.Errorf("%s: operator symmetric = %v", c.name, p.Op.Symmetric())
		}
		// A float32 sensing file is held as float32, at its own size.
		if s, ok := p.Op.(*scaledsm.Sensing); ok {
			is32 := strings.Contains(c.name, "float32")
			if want := int64(8 * len(c.want)); is32 {
				want /= 2
				if s.Data32() == nil || s.Bytes() != want {
					t.Errorf("%s: held in %d bytes as float32 = %v, want %d bytes of float32", c.name, s.Bytes(), s.Data32() != nil, want)
				}
			} else if s.Data() == nil || s.Bytes() != want {
				t.Errorf("%s: held in %d bytes, want %d bytes of float64", c.name, s.Bytes(), want)
			}
		}
	}

	// Without the truth, the problem has none.
	p, err := Load(Files{Quadratic: filepath.Join(dir, "q.npy"), Y: yq}, 2)
	if err != nil || p.Truth != nil {
		t.Errorf("no truth: %v, truth %v", err, p.Truth)
	}
}

// TestLoadSolve recovers a sensing problem read from files written in
// Fortran order: the data must arrive intact for the recovery to be exact.
func TestLoadSolve(t *testing.T) {
	dir := t.TempDir()
	in := instance(t, synth.Sensing, 10, 8, 2, 0.1)
	m, _, _ := in.Op.Dims()
	p, err := Load(Files{
		Sensing: save(t, dir, "A.npy", raw(fortranFile(t, "<f8", []int{m, 10, 8}, opData(in.Op)))),
		Y:       save(t, dir, "y.npy", f64([]int{m}, in.Y)),
		Truth:   save(t, dir, "X.npy", f64([]int{10, 8}, in.Truth.RawMatrix().Data)),
	}, 2)
	if err != nil {
		t.Fatal(err)
	}
	res, err := scaledsm.Solve(context.Background(), p, scaledsm.Settings{Step: scaledsm.Geometric{Lambda: 2, Q: 0.9}, Truncation: scaledsm.TruncateFraction(0.1)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != scaledsm.Converged || !(res.RelError <= 1e-10) {
		t.Errorf("status %v, relative error %v", res.Status, res.RelError)
	}
}

// TestLoadErrors checks that each bad input is one error naming the file
// (or the rank) and the reason.
func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	good := save(t, dir, "A.npy", f64([]int{20, 3, 4}, pattern([]int{20, 3, 4})))
	flat := save(t, dir, "A2.npy", f64([]int{20, 12}, pattern([]int{20, 12})))
	y := save(t, dir, "y.npy", f64([]int{20}, pattern([]int{20})))
	q := save(t, dir, "q.npy", f64([]int{20, 5}, pattern([]int{20, 5})))
	full, _ := os.ReadFile(good)
	nan := pattern([]int{20})
	nan[7] = math.NaN()
	inf := pattern([]int{20, 3, 4})
	inf[3*4*2+5] = math.Inf(-1)
	cases := []struct {
		name  string
		files Files
		rank  int
		input string // the FileError's input; "" for an InputError
		want  string
	}{
		{"missing", Files{Sensing: filepath.Join(dir, "nope.npy"), Y: y}, 1, "sensing", "cannot open: no such file"},
		{"directory", Files{Sensing: dir, Y: y}, 1, "sensing", "cannot read"},
		{"empty", Files{Sensing: save(t, dir, "e.npy", raw(nil)), Y: y}, 1, "sensing", "empty file"},
		{"truncated", Files{Sensing: save(t, dir, "t.npy", raw(full[:len(full)-9])), Y: y}, 1, "sensing", "truncated: it holds 1911 bytes of data, its header declares 1920"},
		{"trailing", Files{Sensing: save(t, dir, "x.npy", raw(append(full[:len(full):len(full)], 1, 2))), Y: y}, 1, "sensing", "corrupted: 2 bytes follow"},
		{"not npy", Files{Sensing: save(t, dir, "c.npy", raw([]byte("a,b,c\n1,2,3\n"))), Y: y}, 1, "sensing", "not a .npy file"},
		{"int64", Files{Sensing: save(t, dir, "i.npy", raw(bytes.Replace(full, []byte("<f8"), []byte("<i8"), 1))), Y: y}, 1, "sensing", "unsupported dtype \"<i8\" (int64)"},
		{"y int32", Files{Sensing: good, Y: save(t, dir, "yi.npy", raw(header("{'descr': '<i4', 'fortran_order': False, 'shape': (20,), }\n")))}, 1, "y", "unsupported dtype"},
		{"y length", Files{Sensing: good, Y: save(t, dir, "y19.npy", f64([]int{19}, pattern([]int{19})))}, 1, "y", "shape (19,), want (20,) for the 20 measurements"},
		{"y column", Files{Sensing: good, Y: save(t, dir, "yc.npy", f64([]int{20, 1}, pattern([]int{20})))}, 1, "y", "y.ravel()"},
		{"truth shape", Files{Sensing: good, Y: y, Truth: save(t, dir, "X.npy", f64([]int{4, 3}, pattern([]int{4, 3})))}, 1, "truth", "shape (4, 3), want (3, 4)"},
		{"flat without shape", Files{Sensing: flat, Y: y}, 1, "sensing", "holds each matrix flattened to 12 values"},
		{"flat wrong shape", Files{Sensing: flat, Y: y, N1: 5, N2: 2}, 1, "sensing", "not 5×2 = 10"},
		{"3-D other shape", Files{Sensing: good, Y: y, N1: 4, N2: 3}, 1, "sensing", "holds 3×4 matrices, not 4×3"},
		{"sensing 1-D", Files{Sensing: y, Y: y}, 1, "sensing", "want (m, n1, n2)"},
		{"quadratic 3-D", Files{Quadratic: good, Y: y}, 1, "quadratic", "want (m, n)"},
		{"empty shape", Files{Sensing: save(t, dir, "z.npy", f64([]int{0, 3, 4}, nil)), Y: y}, 1, "sensing", "shape (0, 3, 4) is empty"},
		{"NaN in y", Files{Sensing: good, Y: save(t, dir, "ynan.npy", f64([]int{20}, nan))}, 1, "y", "entry [7] is NaN"},
		{"Inf in A", Files{Sensing: save(t, dir, "ainf.npy", f64([]int{20, 3, 4}, inf)), Y: y}, 1, "sensing", "entry (2, 1, 1) is -Inf"},
		{"rank 0", Files{Sensing: good, Y: y}, 0, "", "rank 0: must lie in [1, min(n1, n2)] = [1, 3]"},
		{"rank 4", Files{Sensing: good, Y: y}, 4, "", "rank 4: must lie in [1, min(n1, n2)] = [1, 3]"},
		{"rank 6 quadratic", Files{Quadratic: q, Y: y}, 6, "", "[1, 5]"},
	}
	for _, c := range cases {
		_, err := Load(c.files, c.rank)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		var fe *FileError
		var re *scaledsm.InputError
		switch {
		case c.input == "" && !errors.As(err, &re):
			t.Errorf("%s: %v is not an InputError", c.name, err)
		case c.input != "" && (!errors.As(err, &fe) || fe.Input != c.input):
			t.Errorf("%s: %v is not a FileError for input %q", c.name, err, c.input)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %q does not contain %q", c.name, err, c.want)
		}
		if fe != nil && !strings.Contains(err.Error(), fe.Path) {
			t.Errorf("%s: %q does not name the file", c.name, err)
		}
	}
	for _, f := range []Files{{Y: y}, {Sensing: good, Quadratic: q, Y: y}, {Sensing: good}, {Quadratic: q, Y: y, N1: 5}} {
		if _, err := Load(f, 1); err == nil {
			t.Errorf("%+v: no error", f)
		}
	}
}
