package main

import (
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm/dataio"
	"github.com/scaledsm/scaledsm/internal/atomicio"
	"github.com/scaledsm/scaledsm/synth"
)

// readMatrix reads a two-dimensional .npy file.
func readMatrix(t *testing.T, path string) *mat.Dense {
	t.Helper()
	data, shape, err := dataio.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(shape) != 2 {
		t.Fatalf("%s has shape %v, want a matrix", path, shape)
	}
	return mat.NewDense(shape[0], shape[1], data)
}

// relError returns ||L Rᵀ - X||_F / ||X||_F, with R = L when r is nil.
func relError(l, r, x *mat.Dense) float64 {
	if r == nil {
		r = l
	}
	var d mat.Dense
	d.Mul(l, r.T())
	d.Sub(&d, x)
	return mat.Norm(&d, 2) / mat.Norm(x, 2)
}

// noTemporaries fails if dir holds a temporary file of writeAtomic.
func noTemporaries(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if atomicio.IsTemp(e.Name()) {
			t.Errorf("%s holds the temporary file %s", dir, e.Name())
		}
	}
}

func readSummary(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}

// TestGenerateSolveRoundTrip generates both kinds of problem as files,
// checks them against the synthetic recipe, and solves them from the files
// with and without the truth: the factors written recover X* to 1e-10.
func TestGenerateSolveRoundTrip(t *testing.T) {
	cases := []struct {
		problem []string
		cfg     synth.Config
		dtype   string
	}{
		{[]string{"--problem", "ms", "--n", "12", "--n2", "9", "--r", "2", "--ps", "0.1"}, synth.Config{Kind: synth.Sensing, N1: 12, N2: 9, Rank: 2, Seed: 1}, "float64"},
		{[]string{"--problem", "qs", "--n", "12", "--r", "2", "--ps", "0.1"}, synth.Config{Kind: synth.Quadratic, N1: 12, Rank: 2, Seed: 1}, "float64"},
		{[]string{"--problem", "ms", "--n", "10", "--r", "2", "--ps", "0.1", "--seed", "4", "--order", "F"}, synth.Config{Kind: synth.Sensing, N1: 10, Rank: 2, Seed: 4}, "float32"},
		{[]string{"--problem", "qs", "--n", "9", "--r", "3", "--ps", "0.1", "--seed", "5", "--order", "F"}, synth.Config{Kind: synth.Quadratic, N1: 9, Rank: 3, Seed: 5}, "float64"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		data := filepath.Join(dir, "data")
		args := append([]string{"generate", "--out", data, "--dtype", c.dtype}, c.problem...)
		code, out, errs := cli(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		if !strings.Contains(out, "solve it with") {
			t.Errorf("generate output lacks the solve command:\n%s", out)
		}

		// The files hold the recipe's problem.
		d, err := synth.New(c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		a := d.Op.(interface{ Data() []float64 }).Data()
		if c.dtype == "float32" {
			for i, v := range a {
				a[i] = float64(float32(v))
			}
		}
		in, err := d.Instance(synth.Setting{Kappa: 10, PS: 0.1, SNR: math.Inf(1)})
		if err != nil {
			t.Fatal(err)
		}
		gotA, shapeA, err := dataio.ReadFile(filepath.Join(data, "A.npy"))
		if err != nil || !slices.Equal(gotA, a) {
			t.Fatalf("A.npy (shape %v) differs from the operator: %v", shapeA, err)
		}
		gotY, _, err := dataio.ReadFile(filepath.Join(data, "y.npy"))
		if err != nil || !slices.Equal(gotY, in.Y) {
			t.Fatalf("y.npy differs from y: %v", err)
		}
		truth := readMatrix(t, filepath.Join(data, "X_star.npy"))
		if !mat.Equal(truth, in.Truth) {
			t.Fatal("X_star.npy differs from X*")
		}
		lStar := readMatrix(t, filepath.Join(data, "L_star.npy"))
		var rStar *mat.Dense
		if c.cfg.Kind == synth.Sensing {
			rStar = readMatrix(t, filepath.Join(data, "R_star.npy"))
		}
		if e := relError(lStar, rStar, truth); e > 1e-14 {
			t.Errorf("the factors written give X* to %v", e)
		}
		mask, err := os.ReadFile(filepath.Join(data, "outliers.npy"))
		if err != nil {
			t.Fatal(err)
		}
		h, err := dataio.ReadHeader(bytes.NewReader(mask))
		if err != nil || h.Dtype != "|b1" {
			t.Fatalf("outliers.npy: %+v %v", h, err)
		}
		for i, corrupted := range in.Corrupted() {
			if (mask[int(h.HeaderSize())+i] == 1) != corrupted {
				t.Fatalf("outlier mask differs at %d", i)
			}
		}
		meta := readSummary(t, filepath.Join(data, "problem.json"))
		if meta["f_star"].(float64) != in.FStar || meta["dtype"] != c.dtype {
			t.Errorf("problem.json: f_star %v, dtype %v", meta["f_star"], meta["dtype"])
		}

		// Solve with and without the truth.
		op := "--sensing"
		if c.cfg.Kind == synth.Quadratic {
			op = "--quadratic"
		}
		for _, withTruth := range []bool{true, false} {
			res := filepath.Join(dir, fmt.Sprintf("result-%v", withTruth))
			// Without the truth the solve is also told nothing of the outliers:
			// the automatic step and the median truncation by default.
			args := []string{"solve", op, filepath.Join(data, "A.npy"), "--y", filepath.Join(data, "y.npy"), "--rank", fmt.Sprint(c.cfg.Rank), "--out", res}
			if withTruth {
				args = append(args, "--truth", filepath.Join(data, "X_star.npy"), "--ps", "0.1")
			}
			code, out, errs := cli(t, args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, errs)
			}
			sum := readSummary(t, filepath.Join(res, "summary.json"))
			// Without the truth, the run can only say that X stopped moving.
			wantStatus, wantTrim := "stationary", "median"
			if withTruth {
				wantStatus, wantTrim = "converged", "0.1"
			}
			if sum["status"] != wantStatus || sum["interrupted"] != false {
				t.Errorf("%v: status %v, want %v", args, sum["status"], wantStatus)
			}
			if sum["step"] != "auto" || sum["init_trim"] != wantTrim || sum["source"] != "files" {
				t.Errorf("%v: step %v, trim %v, source %v; want auto, %v, files", args, sum["step"], sum["init_trim"], sum["source"], wantTrim)
			}
			if f := sum["fit_fraction"].(float64); math.Abs(f-(1-float64(meta["outliers"].(float64))/float64(d.M))) > 1e-9 {
				t.Errorf("%v: fit fraction %v with %v outliers of %d", args, f, meta["outliers"], d.M)
			}
			l := readMatrix(t, filepath.Join(res, "L.npy"))
			var r *mat.Dense
			if c.cfg.Kind == synth.Sensing {
				r = readMatrix(t, filepath.Join(res, "R.npy"))
			} else if _, err := os.Stat(filepath.Join(res, "R.npy")); err == nil {
				t.Error("R.npy written for X = L Lᵀ")
			}
			if e := relError(l, r, truth); !(e <= 1e-10) {
				t.Errorf("%v: factors recover X* to %v, want 1e-10\n%s", args, e, out)
			}
			if withTruth {
				if e := sum["rel_error"].(float64); !(e <= 1e-10) || math.Abs(e-relError(l, r, truth)) > 1e-14 {
					t.Errorf("summary rel_error %v, factors' %v", e, relError(l, r, truth))
				}
			} else if sum["rel_error"] != nil {
				t.Errorf("rel_error %v without a truth, want null", sum["rel_error"])
			}
			rows := readCSV(t, filepath.Join(res, "trace.csv"))
			if len(rows) != int(sum["iterations"].(float64))+2 {
				t.Errorf("trace has %d rows for %v iterations", len(rows), sum["iterations"])
			}
			noTemporaries(t, res)
		}
		noTemporaries(t, data)
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

// writeFortran32 writes the row-major m×n data as a float32 Fortran-order
// .npy file with a header built by hand, as NumPy writes np.asfortranarray(
// a, dtype=np.float32).
func writeFortran32(t *testing.T, path string, m, n int, data []float64) {
	t.Helper()
	dict := fmt.Sprintf("{'descr': '<f4', 'fortran_order': True, 'shape': (%d, %d), }", m, n)
	pad := 64 - (10+len(dict)+1)%64
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(dict)+pad+1))
	b.WriteString(dict + strings.Repeat(" ", pad) + "\n")
	for j := range n {
		for i := range m {
			binary.Write(&b, binary.LittleEndian, float32(data[i*n+j]))
		}
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSolveFortranFloat32 solves a sensing problem stored as NumPy would
// store a float32 Fortran-order (m, n1·n2) array, with y computed from the
// float32 values.
func TestSolveFortranFloat32(t *testing.T) {
	dir := t.TempDir()
	d, err := synth.New(synth.Config{Kind: synth.Sensing, N1: 8, N2: 6, Rank: 2, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	a := d.Op.(interface{ Data() []float64 }).Data()
	for i, v := range a {
		a[i] = float64(float32(v))
	}
	in, err := d.Instance(synth.Setting{Kappa: 3, SNR: math.Inf(1)})
	if err != nil {
		t.Fatal(err)
	}
	writeFortran32(t, filepath.Join(dir, "A.npy"), d.M, 48, a)
	var y bytes.Buffer
	if err := dataio.WriteFloat64(&y, []int{d.M}, in.Y); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "y.npy"), y.Bytes(), 0o644)
	out := filepath.Join(dir, "out")
	code, _, errs := cli(t, "solve", "--sensing", filepath.Join(dir, "A.npy"), "--n1", "8", "--n2", "6", "--y", filepath.Join(dir, "y.npy"), "--rank", "2", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if e := relError(readMatrix(t, filepath.Join(out, "L.npy")), readMatrix(t, filepath.Join(out, "R.npy")), in.Truth); !(e <= 1e-10) {
		t.Errorf("relative error %v", e)
	}
}

// TestSolveFloat32Values: generate --dtype float32 writes an entry
// problem's values.npy as float32, the rounding of the float64 draw's, and
// solve holds them so (Problem.Y32) with the factors, iterations and
// summary of the same values read as float64, to the bit: with and without
// the truth, and with --holdout (whose split takes float64 values).
func TestSolveFloat32Values(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "D")
	if code, _, errs := cli(t, "generate", "--problem", "mc", "--n", "80", "--r", "2", "--p", "0.3", "--ps", "0.1", "--dtype", "float32", "--out", data); code != 0 {
		t.Fatal(errs)
	}
	raw, _ := os.ReadFile(filepath.Join(data, "values.npy"))
	if !bytes.Contains(raw[:128], []byte("'<f4'")) {
		t.Fatalf("values.npy is not float32: %q", raw[:64])
	}
	_, _, y, err := dataio.LoadEntries(dataio.EntryFiles{Rows: filepath.Join(data, "rows.npy"), Cols: filepath.Join(data, "cols.npy"), Values: filepath.Join(data, "values.npy"), N1: 80, N2: 80})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := dataio.WriteFloat64(&b, []int{len(y)}, y); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(data, "values64.npy"), b.Bytes(), 0o644)
	for _, extra := range [][]string{nil, {"--truth-left", filepath.Join(data, "L_star.npy"), "--truth-right", filepath.Join(data, "R_star.npy")}, {"--holdout", "0.1"}} {
		var outs [2][]byte
		var sums [2]map[string]any
		for k, values := range []string{"values.npy", "values64.npy"} {
			out := filepath.Join(dir, fmt.Sprintf("o%d", k))
			args := append([]string{"solve", "--rows", filepath.Join(data, "rows.npy"), "--cols", filepath.Join(data, "cols.npy"), "--values", filepath.Join(data, values),
				"--shape", "80x80", "--rank", "2", "--ps", "0.1", "--json", "--out", out}, extra...)
			code, stdout, errs := cli(t, args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", extra, code, errs)
			}
			if outs[k], _ = os.ReadFile(filepath.Join(out, "L.npy")); len(outs[k]) == 0 {
				t.Fatalf("%v: %s: no L.npy", extra, values)
			}
			json.Unmarshal([]byte(stdout), &sums[k])
		}
		if !bytes.Equal(outs[0], outs[1]) || sums[0]["status"] != sums[1]["status"] || sums[0]["iterations"] != sums[1]["iterations"] {
			t.Errorf("%v: float32 values: %v after %v iterations, float64: %v after %v; L.npy equal %v",
				extra, sums[0]["status"], sums[0]["iterations"], sums[1]["status"], sums[1]["iterations"], bytes.Equal(outs[0], outs[1]))
		}
	}
}

// TestSolveFilesBadInput runs each bad input through the command line: one
// line on stderr naming the file or flag and the reason, a non-zero exit,
// no panic, nothing on stdout, nothing written to --out.
func TestSolveFilesBadInput(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if code, _, errs := cli(t, "generate", "--problem", "ms", "--n", "6", "--n2", "5", "--r", "2", "--out", data); code != 0 {
		t.Fatal(errs)
	}
	A, y, X := filepath.Join(data, "A.npy"), filepath.Join(data, "y.npy"), filepath.Join(data, "X_star.npy")
	m := 4 * 11 * 2
	bad := filepath.Join(dir, "bad")
	os.Mkdir(bad, 0o755)
	file := func(name string, b []byte) string {
		p := filepath.Join(bad, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	npy := func(name string, shape []int, v []float64) string {
		var b bytes.Buffer
		if err := dataio.WriteFloat64(&b, shape, v); err != nil {
			t.Fatal(err)
		}
		return file(name, b.Bytes())
	}
	full, _ := os.ReadFile(A)
	yv, _, _ := dataio.ReadFile(y)
	av, _, _ := dataio.ReadFile(A)
	xv, _, _ := dataio.ReadFile(X)
	nanA := slices.Clone(av)
	nanA[5*30+7] = math.NaN()
	infY := slices.Clone(yv)
	infY[3] = math.Inf(1)
	nanX := slices.Clone(xv)
	nanX[29] = math.NaN()

	truncated := file("truncated.npy", full[:len(full)-100])
	cutHeader := file("cut.npy", full[:40])
	garbage := file("garbage.npy", []byte("this is not a NumPy file at all"))
	badDict := file("dict.npy", append([]byte("\x93NUMPY\x01\x00\x10\x00{'descr': 3}   \n"), full[128:]...))
	ints := file("int64.npy", bytes.Replace(full, []byte("'<f8'"), []byte("'<i8'"), 1))
	cplx := file("complex.npy", bytes.Replace(full, []byte("'<f8'"), []byte("'<c8'"), 1))
	flat := npy("flat.npy", []int{m, 30}, av)
	yShort := npy("y_short.npy", []int{m - 1}, yv[:m-1])
	yCol := npy("y_col.npy", []int{m, 1}, yv)
	xWrong := npy("x_wrong.npy", []int{5, 6}, xv)
	aNaN := npy("a_nan.npy", []int{m, 6, 5}, nanA)
	yInf := npy("y_inf.npy", []int{m}, infY)
	xNaN := npy("x_nan.npy", []int{6, 5}, nanX)
	notDir := file("plain", []byte("x"))

	base := func(extra ...string) []string {
		return append([]string{"--sensing", A, "--y", y, "--rank", "2"}, extra...)
	}
	with := func(args ...string) []string { return args }
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"missing file", with("--sensing", filepath.Join(dir, "nope.npy"), "--y", y, "--rank", "2"), 2, "--sensing " + filepath.Join(dir, "nope.npy") + ": cannot open: no such file or directory"},
		{"unreadable file", with("--sensing", A, "--y", bad, "--rank", "2"), 2, "--y " + bad + ": cannot read"},
		{"truncated data", with("--sensing", truncated, "--y", y, "--rank", "2"), 2, "--sensing " + truncated + ": truncated"},
		{"truncated header", with("--sensing", cutHeader, "--y", y, "--rank", "2"), 2, "--sensing " + cutHeader + ": truncated"},
		{"not npy", with("--sensing", garbage, "--y", y, "--rank", "2"), 2, "--sensing " + garbage + ": not a .npy file"},
		{"corrupted header", with("--sensing", badDict, "--y", y, "--rank", "2"), 2, "--sensing " + badDict + ": corrupted header"},
		{"int64", with("--sensing", ints, "--y", y, "--rank", "2"), 2, "--sensing " + ints + ": unsupported dtype \"<i8\" (int64)"},
		{"complex", with("--sensing", A, "--y", cplx, "--rank", "2"), 2, "--y " + cplx + ": unsupported dtype \"<c8\" (complex64)"},
		{"y length", with("--sensing", A, "--y", yShort, "--rank", "2"), 2, "--y " + yShort + ": shape (87,), want (88,)"},
		{"y column", with("--sensing", A, "--y", yCol, "--rank", "2"), 2, "--y " + yCol + ": shape (88, 1)"},
		{"truth shape", base("--truth", xWrong), 2, "--truth " + xWrong + ": shape (5, 6), want (6, 5)"},
		{"flat without n1 n2", with("--sensing", flat, "--y", y, "--rank", "2"), 2, "--sensing " + flat + ": the matrices' shape n1×n2 is needed"},
		{"flat with wrong n1 n2", with("--sensing", flat, "--n1", "4", "--n2", "5", "--y", y, "--rank", "2"), 2, "not 4×5 = 20"},
		{"3-D against n1 n2", base("--n1", "5", "--n2", "6"), 2, "holds 6×5 matrices, not 5×6"},
		{"NaN in A", with("--sensing", aNaN, "--y", y, "--rank", "2"), 2, "--sensing " + aNaN + ": entry (5, 1, 2) is NaN"},
		{"Inf in y", with("--sensing", A, "--y", yInf, "--rank", "2"), 2, "--y " + yInf + ": entry [3] is +Inf"},
		{"NaN in truth", base("--truth", xNaN), 2, "--truth " + xNaN + ": entry (5, 4) is NaN"},
		{"rank 0", with("--sensing", A, "--y", y, "--rank", "0"), 2, "--rank 0: must be at least 1"},
		{"rank above min", with("--sensing", A, "--y", y, "--rank", "6"), 2, "--rank 6: must lie in [1, min(n1, n2)] = [1, 5]"},
		{"rank missing", with("--sensing", A, "--y", y), 2, "--rank: missing"},
		{"ps 0.5", base("--ps", "0.5"), 2, "--ps 0.5: the fraction of measurements assumed corrupted must lie in [0, 0.5)"},
		{"ps 0.7", base("--ps", "0.7"), 2, "--ps 0.7"},
		{"ps negative", base("--ps", "-0.1"), 2, "--ps -0.1"},
		{"q 1", base("--step", "geometric", "--q", "1"), 2, "--q 1: the geometric step's decay rate must lie in (0, 1)"},
		{"q 0", base("--step", "geometric", "--q", "0"), 2, "--q 0: the geometric step's decay rate must lie in (0, 1)"},
		{"q alone", base("--q", "0.5"), 2, "--q 0.5: applies to --step geometric: give --step geometric too"},
		{"q 1.5", base("--step", "geometric", "--q", "1.5"), 2, "--q 1.5"},
		{"lambda 0", base("--step", "geometric", "--lambda", "0"), 2, "--lambda 0: the geometric step's initial length must be positive"},
		{"lambda negative", base("--step", "geometric", "--lambda", "-2"), 2, "--lambda -2: the geometric step's initial length must be positive"},
		{"iters 0", base("--iters", "0"), 2, "--iters 0: must be positive"},
		{"iters negative", base("--iters", "-4"), 2, "--iters -4: must be positive"},
		{"polyak without truth", base("--step", "polyak"), 2, "--step polyak: Polyak's step needs f(X*)"},
		{"both operators", base("--quadratic", A), 2, "--quadratic " + A + ": give either --sensing or --quadratic, not both"},
		{"y missing", with("--sensing", A, "--rank", "2"), 2, "--y: missing"},
		{"synthetic kappa", base("--kappa", "5"), 2, "--kappa 5: sets up a synthetic problem"},
		{"synthetic precision", base("--precision", "f32"), 2, "--precision f32: sets up a synthetic problem; a float32 --sensing file is kept as float32"},
		{"synthetic r", base("--r", "2"), 2, "--r 2: is the rank of a synthetic problem; with files, give --rank"},
		{"synthetic n", base("--n", "6"), 2, "--n 6: is the size of a synthetic problem"},
		{"n1 without n2", base("--n1", "6"), 2, "--n1 6: give --n2 too"},
		{"n1 zero", base("--n1", "0", "--n2", "5"), 2, "--n1 0: must be at least 1"},
		{"n1 with quadratic", with("--quadratic", A, "--y", y, "--rank", "2", "--n1", "6"), 2, "--n1 6: applies to --sensing files"},
		{"quadratic of a 3-D file", with("--quadratic", A, "--y", y, "--rank", "2"), 2, "--quadratic " + A + ": shape (88, 6, 5), want (m, n)"},
		{"files flag without files", with("--y", y), 2, "--y " + y + ": applies to a problem read from files"},
		{"fitted rank above n", with("--problem", "ms", "--n", "10", "--r", "2", "--rank", "11"), 2, "--rank 11: must lie in [1, min(n1, n2)] = [1, 10], or be auto"},
		{"rank word", with("--rank", "five"), 2, "--rank five: must be at least 1, or auto"},
	}
	for _, c := range cases {
		out := filepath.Join(dir, "out")
		args := append([]string{"solve"}, c.args...)
		if !slices.Contains(args, "--out") && slices.Contains(args, "--sensing") || slices.Contains(args, "--quadratic") {
			args = append(args, "--out", out)
		}
		code, stdout, stderr := cli(t, args...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d (stderr %q)", c.name, code, c.code, stderr)
		}
		if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
			t.Errorf("%s: stderr is not one line: %q", c.name, stderr)
		}
		if !strings.Contains(stderr, c.want) {
			t.Errorf("%s: stderr %q does not contain %q", c.name, stderr, c.want)
		}
		if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine") || stdout != "" {
			t.Errorf("%s: stdout %q, stderr %q", c.name, stdout, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: --out %s was created", c.name, out)
			os.RemoveAll(out)
		}
		noTemporaries(t, bad)
		noTemporaries(t, data)
	}

	// Without --out, bad input is still one line: the warning that the
	// factors will not be written comes once the settings are good.
	if code, _, stderr := cli(t, append([]string{"solve"}, base("--init", "convex")...)...); code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--init convex") {
		t.Errorf("--init convex without --out: exit %d, stderr %q; want one line", code, stderr)
	}

	// --out problems, and an existing --out left as it was.
	existing := filepath.Join(dir, "existing")
	os.Mkdir(existing, 0o755)
	os.WriteFile(filepath.Join(existing, "L.npy"), []byte("old"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{base("--out", notDir), "--out " + notDir + ": is not a directory"},
		{base("--out", filepath.Join(notDir, "sub")), "--out " + filepath.Join(notDir, "sub") + ": cannot be created"},
		{base("--out", existing, "--rank", "9"), "--rank 9"},
		{base("--out", existing, "--truth", xNaN), "is NaN"},
	} {
		code, _, stderr := cli(t, append([]string{"solve"}, c.args...)...)
		if code == 0 || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
	}
	if entries, _ := os.ReadDir(existing); len(entries) != 1 {
		t.Errorf("a failed run changed --out: %d entries", len(entries))
	}
	if b, _ := os.ReadFile(filepath.Join(existing, "L.npy")); string(b) != "old" {
		t.Error("a failed run overwrote L.npy")
	}
}

// TestGenerateBadFlags checks generate's own flags.
func TestGenerateBadFlags(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, nil, 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--n", "5"}, "--out: missing"},
		{[]string{"--out", out, "--dtype", "float16"}, "--dtype float16: want float64 or float32"},
		{[]string{"--out", out, "--order", "K"}, "--order K: want C or F"},
		{[]string{"--out", out, "--ps", "0.5"}, "--ps 0.5"},
		{[]string{"--out", out, "--r", "0"}, "--r 0"},
		{[]string{"--out", out, "--n", "10", "--r", "11"}, "--r 11"},
		{[]string{"--out", out, "--kappa", "0.5"}, "--kappa 0.5"},
		{[]string{"--out", plain}, "--out " + plain + ": is not a directory"},
		{[]string{"--out", out, "--users", "9"}, "--users 9: applies to --problem ratings"},
		{[]string{"--out", out, "--problem", "ratings", "--users", "10"}, "--ratings 100000: must lie in [1, 8250]"},
		{[]string{"--out", out, "--problem", "ratings", "--users", "0"}, "--users 0: must be at least 1"}, // not the default's 950 under the name of 0
		{[]string{"--out", out, "--problem", "ratings", "--items", "0", "--ratings", "0"}, "--items 0: must be at least 1"},
		{[]string{"--out", out, "--problem", "ratings", "--users", "2", "--items", "2", "--ratings", "2"}, "--users 2: with --items 2: the generator's rank-5 truth needs at least 5"}, // it named no flag
		{[]string{"--out", out, "--problem", "ratings", "--holdout", "1"}, "--holdout 1: must lie in [0, 1)"},
		{[]string{"--out", out, "--problem", "ratings", "--n", "5"}, "--n 5: does not apply to --problem ratings"},
		// 10^11 ratings need some TB: refused before a draw.
		{[]string{"--out", out, "--problem", "ratings", "--users", "1000000", "--items", "1000000", "--ratings", "100000000000"}, "--ratings 100000000000 needs about"},
	} {
		code, stdout, stderr := cli(t, append([]string{"generate"}, c.args...)...)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: --out created", c.args)
		}
	}
}

// TestStaleR checks that a PSD result in a directory that held a sensing
// result leaves no R.npy that would not belong to it.
func TestStaleR(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"ms", "qs"} {
		if code, _, errs := cli(t, "generate", "--problem", p, "--n", "6", "--r", "1", "--out", filepath.Join(dir, p)); code != 0 {
			t.Fatal(errs)
		}
	}
	out := filepath.Join(dir, "out")
	for _, c := range []struct{ flag, p string }{{"--sensing", "ms"}, {"--quadratic", "qs"}} {
		code, _, errs := cli(t, "solve", c.flag, filepath.Join(dir, c.p, "A.npy"), "--y", filepath.Join(dir, c.p, "y.npy"), "--rank", "1", "--out", out, "--iters", "5")
		if code != 0 {
			t.Fatal(errs)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "R.npy")); err == nil {
		t.Error("R.npy of the sensing run is still there beside the PSD result")
	}
	if s := readSummary(t, filepath.Join(out, "summary.json")); s["problem"] != "qs" || fmt.Sprint(s["files"]) != "[L.npy trace.csv summary.json]" {
		t.Errorf("summary %v", s)
	}
}

// TestInterrupt builds the command, starts a long solve from files, sends
// it SIGINT (and SIGTERM), and checks that it stops with exit status 130,
// leaving a complete, readable partial result and no temporary file.
func TestInterrupt(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to send on Windows")
	}
	if testing.Short() {
		t.Skip("builds the command and runs it for about a second")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "scaledsm")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	data := filepath.Join(dir, "data")
	if code, _, errs := cli(t, "generate", "--problem", "ms", "--n", "30", "--r", "3", "--out", data); code != 0 {
		t.Fatal(errs)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		out := filepath.Join(dir, "out-"+sig.String())
		// A slow decay and no stopping rule: the solve runs until stopped.
		cmd := exec.Command(bin, "solve", "--sensing", filepath.Join(data, "A.npy"), "--y", filepath.Join(data, "y.npy"),
			"--rank", "3", "--truth", filepath.Join(data, "X_star.npy"), "--step", "geometric", "--q", "0.99999", "--tol", "0", "--iters", "100000000", "--out", out)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Reading the files takes milliseconds; the iterations start at
		// once and go on until stopped.
		time.Sleep(time.Second)
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != 128+int(sig) {
			t.Fatalf("%v: exit %d (%v), want %d; stderr %q", sig, code, err, 128+int(sig), stderr.String())
		}
		if !strings.Contains(stderr.String(), "interrupted after") || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%v: stderr %q", sig, stderr.String())
		}
		entries, _ := os.ReadDir(out)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if !slices.Equal(names, []string{"L.npy", "R.npy", "summary.json", "trace.csv"}) {
			t.Errorf("%v: --out holds %v", sig, names)
		}
		sum := readSummary(t, filepath.Join(out, "summary.json"))
		iters := int(sum["iterations"].(float64))
		if sum["status"] != "interrupted" || sum["interrupted"] != true || iters < 1 {
			t.Errorf("%v: summary status %v, interrupted %v, %d iterations", sig, sum["status"], sum["interrupted"], iters)
		}
		if rows := readCSV(t, filepath.Join(out, "trace.csv")); len(rows) != iters+2 {
			t.Errorf("%v: trace has %d rows for %d iterations", sig, len(rows), iters)
		}
		l := readMatrix(t, filepath.Join(out, "L.npy"))
		r := readMatrix(t, filepath.Join(out, "R.npy"))
		e := relError(l, r, readMatrix(t, filepath.Join(data, "X_star.npy")))
		// The solver forms L Rᵀ with other loops than gonum's: after
		// thousands of long steps the factors are unbalanced and the two
		// products differ by more than the rounding of X itself.
		if math.Abs(e-sum["rel_error"].(float64)) > 1e-9*max(1, e) {
			t.Errorf("%v: the factors written have relative error %v, the summary says %v", sig, e, sum["rel_error"])
		}
		if !strings.Contains(stdout.String(), "status     interrupted") {
			t.Errorf("%v: stdout %q", sig, stdout.String())
		}
		t.Logf("%v: stopped after %d iterations at relative error %.3g (%.2g from the summary)", sig, iters, e, math.Abs(e-sum["rel_error"].(float64)))
	}
}

// TestGenerateRatingsNoHoldout: with --holdout 0 the command printed
// names no --test, whose file holds no rating and would be refused.
func TestGenerateRatingsNoHoldout(t *testing.T) {
	d := filepath.Join(t.TempDir(), "g")
	code, out, errs := cli(t, "generate", "--problem", "ratings", "--users", "50", "--items", "60", "--ratings", "600", "--holdout", "0", "--out", d)
	if code != 0 || !strings.Contains(out, "scaledsm solve --ratings "+filepath.Join(d, "train.csv")+"\n") || strings.Contains(out, "--test") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
