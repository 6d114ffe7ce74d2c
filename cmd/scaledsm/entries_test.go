package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/completion"
	"github.com/scaledsm/scaledsm/dataio"
	"github.com/scaledsm/scaledsm/internal/mem"
	"github.com/scaledsm/scaledsm/internal/obs"
	"github.com/scaledsm/scaledsm/report"
	"github.com/scaledsm/scaledsm/synth"
)

// writeInts writes integer indices as a .npy array of the given NumPy
// dtype ('<i8', '<i4', '>u2', '|i1', ...).
func writeInts(t *testing.T, path, dtype string, v []int64) {
	t.Helper()
	var b bytes.Buffer
	if err := dataio.WriteHeader(&b, dataio.Header{Dtype: dtype, Shape: []int{len(v)}}); err != nil {
		t.Fatal(err)
	}
	order := binary.AppendByteOrder(binary.LittleEndian)
	if dtype[0] == '>' {
		order = binary.BigEndian
	}
	for _, x := range v {
		switch dtype[2] {
		case '1':
			b.WriteByte(byte(x))
		case '2':
			b.Write(order.AppendUint16(nil, uint16(x)))
		case '4':
			b.Write(order.AppendUint32(nil, uint32(x)))
		default:
			b.Write(order.AppendUint64(nil, uint64(x)))
		}
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readInts reads an integer .npy file.
func readInts(t *testing.T, path string) []int64 {
	t.Helper()
	v, _, err := dataio.ReadInts(path)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// readVector reads a float .npy file.
func readVector(t *testing.T, path string) []float64 {
	t.Helper()
	v, _, err := dataio.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSolveEntriesSynthetic solves matrix completion and robust PCA
// problems of the recipe: the gradient baseline recovers them (no
// outliers) and the summary describes the entries; without --method the
// model's defaults of entryDefaults apply.
func TestSolveEntriesSynthetic(t *testing.T) {
	for _, c := range []struct {
		args    []string
		problem string
		p       float64
	}{
		{[]string{"--problem", "mc", "--n", "40", "--n2", "50", "--p", "0.5"}, "mc", 0.5},
		{[]string{"--problem", "rpca", "--n", "30"}, "rpca", 1},
	} {
		args := append([]string{"solve", "--json", "--r", "2", "--kappa", "2", "--method", "scaledgd", "--tol", "1e-10", "--iters", "500"}, c.args...)
		code, out, errs := cli(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		rep := jsonOf(t, out)
		if rep["problem"] != c.problem || rep["p"] != c.p || rep["status"] != "converged" || rep["rel_error"].(float64) > 1e-10 {
			t.Errorf("%v: problem %v, p %v, status %v, error %v", c.args, rep["problem"], rep["p"], rep["status"], rep["rel_error"])
		}
		n1, n2, m := rep["n1"].(float64), rep["n2"].(float64), rep["m"].(float64)
		if f := rep["observed_fraction"].(float64); f != m/(n1*n2) || rep["empty_rows"] != 0.0 || rep["empty_cols"] != 0.0 {
			t.Errorf("%v: observed %v of %v×%v with m %v, empty %v %v", c.args, f, n1, n2, m, rep["empty_rows"], rep["empty_cols"])
		}
		if c.problem == "mc" && math.Abs(m/(n1*n2)-c.p) > 0.05 {
			t.Errorf("%v: %v entries observed of %v, p = %v", c.args, m, n1*n2, c.p)
		}
	}

	// With outliers, the sparse part's support is scored against them:
	// all found at an exact recovery.
	code, out, errs := cli(t, "solve", "--json", "--problem", "mc", "--n", "200", "--r", "2", "--p", "0.3", "--ps", "0.1", "--tol", "1e-10")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rep := jsonOf(t, out)
	if rep["status"] != "converged" || rep["outliers_found"] != rep["outliers"] || rep["outlier_precision"] != 1.0 || rep["outlier_recall"] != 1.0 {
		t.Errorf("with outliers: %v at %v, %v of %v outliers found, precision %v, recall %v",
			rep["status"], rep["rel_error"], rep["outliers_found"], rep["outliers"], rep["outlier_precision"], rep["outlier_recall"])
	}

	// The defaults: the model's method and step, and --p from the
	// paper's number of measurements.
	code, out, errs = cli(t, "solve", "--json", "--problem", "mc", "--n", "30", "--r", "2", "--iters", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rep = jsonOf(t, out)
	d := entryDefaults()
	if rep["method"] != d.Method.String() || rep["step"] != fmt.Sprint(d.Step) {
		t.Errorf("default method %v, step %v; want %v, %v", rep["method"], rep["step"], d.Method, d.Step)
	}
	if p := rep["p"].(float64); p != synth.DefaultM(30, 30, 2)/900 {
		t.Errorf("default p = %v, want 4(n1+n2)r/(n1 n2)", p)
	}
	// --eta alone sets the model's constant step's length: it was ignored
	// for the model's default step of 0.5.
	code, out, errs = cli(t, "solve", "--json", "--problem", "mc", "--n", "30", "--r", "2", "--iters", "3", "--eta", "0.3")
	if rep = jsonOf(t, out); code != 0 || rep["step"] != "constant" || rep["eta"] != 0.3 {
		t.Errorf("--eta 0.3: exit %d, step %v, eta %v; want constant, 0.3 (%s)", code, rep["step"], rep["eta"], errs)
	}
}

// TestGenerateSolveEntries is acceptance 3 at a small size: generate writes
// a matrix completion problem as COO triplets and the truth's factors; the
// solve command it prints runs; a solve from the files is the synthetic
// solve, bit for bit, whatever the indices' integer type; and without
// outliers the files are recovered to 1e-8, by the error in summary.json
// and by the factors written.
func TestGenerateSolveEntries(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	gen := []string{"--problem", "mc", "--n", "60", "--r", "2", "--p", "0.5", "--ps", "0.1", "--kappa", "3", "--seed", "4"}
	generate(t, data, gen...)
	for _, name := range []string{"rows.npy", "cols.npy", "values.npy", "L_star.npy", "R_star.npy", "problem.json"} {
		if _, err := os.Stat(filepath.Join(data, name)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(data, "A.npy")); err == nil {
		t.Error("A.npy written for matrix completion")
	}
	rows, cols := readInts(t, filepath.Join(data, "rows.npy")), readInts(t, filepath.Join(data, "cols.npy"))
	values := readVector(t, filepath.Join(data, "values.npy"))
	star := scaledsm.Factors{L: readMatrix(t, filepath.Join(data, "L_star.npy")), R: readMatrix(t, filepath.Join(data, "R_star.npy"))}
	meta := readSummary(t, filepath.Join(data, "problem.json"))
	m := len(values)
	if len(rows) != m || len(cols) != m || meta["m"] != float64(m) {
		t.Fatalf("%d rows, %d cols, %d values, m %v", len(rows), len(cols), m, meta["m"])
	}
	outliers := 0
	for k := range m {
		if k > 0 && (rows[k] < rows[k-1] || rows[k] == rows[k-1] && cols[k] <= cols[k-1]) {
			t.Fatalf("entry %d (%d, %d) out of order", k, rows[k], cols[k])
		}
		if math.Abs(values[k]-star.At(int(rows[k]), int(cols[k]))) > 1e-12 {
			outliers++
		}
	}
	if meta["outliers"] != float64(outliers) || outliers == 0 {
		t.Errorf("%d values differ from X*, problem.json says %v outliers", outliers, meta["outliers"])
	}

	// The printed command runs (to a few iterations).
	solve := strings.Fields(meta["solve"].(string))
	if code, _, errs := cli(t, append(solve[1:], "--iters", "5")...); code != 0 {
		t.Fatalf("%v: exit %d: %s", solve, code, errs)
	}

	// From files, as acceptance 3 runs it, and the synthetic solve.
	files := []string{"solve", "--rows", filepath.Join(data, "rows.npy"), "--cols", filepath.Join(data, "cols.npy"),
		"--values", filepath.Join(data, "values.npy"), "--shape", "60x60", "--rank", "2",
		"--truth-left", filepath.Join(data, "L_star.npy"), "--truth-right", filepath.Join(data, "R_star.npy"), "--iters", "40", "--json"}
	out1 := filepath.Join(dir, "o1")
	code, out, errs := cli(t, append(files, "--out", out1)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	fromFiles := jsonOf(t, out)
	code, out, errs = cli(t, append([]string{"solve", "--json", "--r", "2", "--iters", "40"}, gen...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	synthetic := jsonOf(t, out)
	for _, key := range []string{"rel_error", "init_rel_error", "final_loss", "iterations", "m"} {
		if fromFiles[key] != synthetic[key] {
			t.Errorf("%s: %v from files, %v synthetic", key, fromFiles[key], synthetic[key])
		}
	}
	for _, name := range []string{"L.npy", "R.npy", "summary.json", "trace.csv"} {
		if _, err := os.Stat(filepath.Join(out1, name)); err != nil {
			t.Error(err)
		}
	}
	e := relError(readMatrix(t, filepath.Join(out1, "L.npy")), readMatrix(t, filepath.Join(out1, "R.npy")), star.Product())
	if got := fromFiles["rel_error"].(float64); math.Abs(e-got) > 1e-9*got {
		t.Errorf("rel_error %v in the summary, %v from the factors written", got, e)
	}

	// The indices as uint16 and int8 give the same bits.
	u16, i8 := filepath.Join(dir, "rows_u16.npy"), filepath.Join(dir, "cols_i8.npy")
	writeInts(t, u16, ">u2", rows)
	writeInts(t, i8, "|i1", cols)
	out2 := filepath.Join(dir, "o2")
	args := slices.Clone(files)
	args[2], args[4] = u16, i8
	if code, _, errs := cli(t, append(args, "--out", out2)...); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, name := range []string{"L.npy", "R.npy"} {
		a, _ := os.ReadFile(filepath.Join(out1, name))
		b, _ := os.ReadFile(filepath.Join(out2, name))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs with uint16 and int8 indices", name)
		}
	}

	// Without outliers, recovered to 1e-8 from the files.
	clean := filepath.Join(dir, "clean")
	generate(t, clean, "--problem", "mc", "--n", "60", "--r", "2", "--p", "0.5", "--kappa", "3", "--seed", "4")
	out3 := filepath.Join(dir, "o3")
	args = slices.Clone(files)
	for i, a := range args {
		args[i] = strings.Replace(a, data, clean, 1)
	}
	code, out, errs = cli(t, append(args, "--out", out3, "--method", "scaledgd", "--iters", "1000", "--tol", "1e-10")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if rep := jsonOf(t, out); rep["rel_error"].(float64) > 1e-8 {
		t.Errorf("rel_error %v from the files of a problem without outliers", rep["rel_error"])
	}
	starClean := scaledsm.Factors{L: readMatrix(t, filepath.Join(clean, "L_star.npy")), R: readMatrix(t, filepath.Join(clean, "R_star.npy"))}
	if e := relError(readMatrix(t, filepath.Join(out3, "L.npy")), readMatrix(t, filepath.Join(out3, "R.npy")), starClean.Product()); e > 1e-8 {
		t.Errorf("the factors written are %v from X*", e)
	}
}

// writeRatings writes the entries of a synthetic matrix completion problem
// (no outliers) as a MovieLens file: user 1000+7i, movie 5+3j, the lines
// shuffled, a timestamp column. It returns X* and the number of ratings.
func writeRatings(t *testing.T, path string) (*mat.Dense, int) {
	t.Helper()
	draw, err := synth.New(synth.Config{Kind: synth.Completion, N1: 40, N2: 30, Rank: 2, P: 0.6, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	in, err := draw.Instance(synth.Setting{Kappa: 2, SNR: math.Inf(1)})
	if err != nil {
		t.Fatal(err)
	}
	op := draw.Op.(*completion.Entries)
	start, cols := op.Start(), op.Cols()
	var lines []string
	for i := range 40 {
		for k := start[i]; k < start[i+1]; k++ {
			lines = append(lines, fmt.Sprintf("%d,%d,%s,%d", 1000+7*i, 5+3*cols[k], strconv.FormatFloat(in.Y[k], 'g', -1, 64), 964982703+k))
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(lines), func(a, b int) { lines[a], lines[b] = lines[b], lines[a] })
	body := "userId,movieId,rating,timestamp\n" + strings.Join(lines, "\n") + "\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return in.Star.Product(), len(lines)
}

// TestSolveRatingsHoldoutPredict is acceptance 4 at a small size: a
// MovieLens file solves with --holdout 0.1; summary.json has the test RMSE
// and MAE, which holdout.csv reproduces; the id maps are written; and
// predict reproduces the held-out predictions bit for bit, from ids in a
// CSV or a .npy file.
func TestSolveRatingsHoldoutPredict(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "ratings.csv")
	xStar, m := writeRatings(t, csvPath)
	out := filepath.Join(dir, "out")
	code, _, errs := cli(t, "solve", "--ratings", csvPath, "--rank", "2", "--holdout", "0.1", "--seed", "5",
		"--method", "scaledgd", "--loss", "l2sq", "--iters", "2000", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	sum := readSummary(t, filepath.Join(out, "summary.json"))
	nt := int(sum["test_entries"].(float64))
	if sum["holdout"] != 0.1 || nt < m/20 || nt > m/5 || sum["m"] != float64(m-nt) || sum["problem"] != "mc" {
		t.Errorf("holdout %v, %v test entries, m %v of %d ratings, problem %v", sum["holdout"], nt, sum["m"], m, sum["problem"])
	}
	rmse, mae := sum["test_rmse"].(float64), sum["test_mae"].(float64)
	if rmse > 1e-8 || mae > rmse {
		t.Errorf("test RMSE %v, MAE %v, want an exact recovery", rmse, mae)
	}
	rowIDs, colIDs := readInts(t, filepath.Join(out, "row_ids.npy")), readInts(t, filepath.Join(out, "col_ids.npy"))
	if len(rowIDs) != 40 || len(colIDs) != 30 || rowIDs[3] != 1021 || colIDs[29] != 92 {
		t.Errorf("ids %v %v", rowIDs, colIDs)
	}
	l, r := readMatrix(t, filepath.Join(out, "L.npy")), readMatrix(t, filepath.Join(out, "R.npy"))
	if e := relError(l, r, xStar); e > 1e-8 {
		t.Errorf("the factors are %v from X*", e)
	}

	// holdout.csv: the test entries, whose predictions give the summary's
	// errors.
	held := readCSV(t, filepath.Join(out, "holdout.csv"))
	if strings.Join(held[0], ",") != "userId,movieId,rating,prediction" || len(held)-1 != nt {
		t.Fatalf("holdout.csv: header %v, %d rows for %d test entries", held[0], len(held)-1, nt)
	}
	var sq float64
	pairs := make([]int64, 0, 2*nt)
	for _, row := range held[1:] {
		v, _ := strconv.ParseFloat(row[2], 64)
		p, _ := strconv.ParseFloat(row[3], 64)
		sq += (p - v) * (p - v)
		u, _ := strconv.ParseInt(row[0], 10, 64)
		mv, _ := strconv.ParseInt(row[1], 10, 64)
		pairs = append(pairs, u, mv)
	}
	if got := math.Sqrt(sq / float64(nt)); math.Abs(got-rmse) > 1e-12*rmse+1e-300 {
		t.Errorf("holdout.csv gives RMSE %v, summary %v", got, rmse)
	}

	// predict from the CSV itself, and from a .npy of the ids.
	pcsv := filepath.Join(dir, "p.csv")
	if code, _, errs := cli(t, "predict", "--factors", out, "--pairs", filepath.Join(out, "holdout.csv"), "--out", pcsv); code != 0 {
		t.Fatalf("predict: exit %d: %s", code, errs)
	}
	pred := readCSV(t, pcsv)
	for k, row := range held[1:] {
		if pred[k+1][0] != row[0] || pred[k+1][1] != row[1] || pred[k+1][2] != row[3] {
			t.Fatalf("prediction %d: %v, held out %v", k, pred[k+1], row)
		}
	}
	var b bytes.Buffer
	if err := dataio.WriteInt64(&b, []int{nt, 2}, pairs); err != nil {
		t.Fatal(err)
	}
	pnpy := filepath.Join(dir, "pairs.npy")
	os.WriteFile(pnpy, b.Bytes(), 0o644)
	if code, _, errs := cli(t, "predict", "--factors", out, "--pairs", pnpy, "--out", filepath.Join(dir, "p.npy")); code != 0 {
		t.Fatalf("predict: exit %d: %s", code, errs)
	}
	for k, v := range readVector(t, filepath.Join(dir, "p.npy")) {
		if held[k+1][3] != strconv.FormatFloat(v, 'g', -1, 64) {
			t.Fatalf("prediction %d: %v, held out %s", k, v, held[k+1][3])
		}
	}

	// An unknown id, an index file for id factors, a bad output.
	for _, c := range []struct {
		pairs, out, want string
	}{
		{"userId,movieId\n1000,5\n1001,5\n", "q.csv", "line 3: row id 1001 is not in the factors' rows"},
		{"1000,5\n1000,6\n", "q.npy", "line 2: col id 6 is not in the factors' cols"},
		{"1000,5\n", "q.txt", "want a .npy or a .csv file"},
	} {
		p := filepath.Join(dir, "pairs.csv")
		os.WriteFile(p, []byte(c.pairs), 0o644)
		code, _, errs := cli(t, "predict", "--factors", out, "--pairs", p, "--out", filepath.Join(dir, c.out))
		if code != 2 || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q, want %q", c.pairs, code, errs, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, c.out)); err == nil {
			t.Errorf("%q: %s written", c.pairs, c.out)
		}
	}
}

// lowRank returns L Rᵀ for random n1×r and n2×r factors.
func lowRank(seed uint64, n1, n2, r int) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 0))
	l, rr := mat.NewDense(n1, r, nil), mat.NewDense(n2, r, nil)
	for _, m := range []*mat.Dense{l, rr} {
		raw := m.RawMatrix().Data
		for i := range raw {
			raw[i] = rng.NormFloat64()
		}
	}
	var x mat.Dense
	x.Mul(l, rr.T())
	return &x
}

// TestSolveMasked is acceptance 5 at a small size: a dense .npy with NaNs
// completes (X.npy recovers X*, S.npy is zero), one without NaNs is robust
// PCA, and for both X.npy = L Rᵀ and S.npy = Y - X off the entries that
// fit; a row of NaNs is counted, warned of, and still solved around.
func TestSolveMasked(t *testing.T) {
	dir := t.TempDir()
	const n1, n2 = 30, 25
	x := lowRank(7, n1, n2, 2)
	rng := rand.New(rand.NewPCG(8, 0))
	yMissing := slices.Clone(x.RawMatrix().Data)
	missing := 0
	for k := range yMissing {
		if rng.Float64() < 0.3 || k/n2 == 4 {
			yMissing[k] = math.NaN()
			missing++
		}
	}
	yOut := slices.Clone(x.RawMatrix().Data)
	for k := range yOut {
		if rng.Float64() < 0.05 {
			yOut[k] += 20 * (rng.Float64() - 0.5)
		}
	}
	for _, c := range []struct {
		name    string
		y       []float64
		args    []string
		problem string
	}{
		{"missing", yMissing, []string{"--method", "scaledgd", "--iters", "3000"}, "mc"},
		{"rpca", yOut, []string{"--iters", "200"}, "rpca"},
	} {
		in := filepath.Join(dir, c.name+".npy")
		writeNpy(t, in, []int{n1, n2}, c.y)
		out := filepath.Join(dir, c.name)
		code, _, errs := cli(t, append([]string{"solve", "--masked", in, "--rank", "2", "--out", out}, c.args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, errs)
		}
		sum := readSummary(t, filepath.Join(out, "summary.json"))
		if sum["problem"] != c.problem {
			t.Errorf("%s: problem %v", c.name, sum["problem"])
		}
		l, r := readMatrix(t, filepath.Join(out, "L.npy")), readMatrix(t, filepath.Join(out, "R.npy"))
		xOut, s := readMatrix(t, filepath.Join(out, "X.npy")), readMatrix(t, filepath.Join(out, "S.npy"))
		var lr mat.Dense
		lr.Mul(l, r.T())
		if !mat.EqualApprox(&lr, xOut, 1e-12) {
			t.Errorf("%s: X.npy is not L Rᵀ", c.name)
		}
		var observed []float64
		for _, v := range c.y {
			if !math.IsNaN(v) {
				observed = append(observed, v)
			}
		}
		tol := obs.FitTolerance * obs.FitScale(observed)
		nonzero := 0
		for k, v := range c.y {
			i, j := k/n2, k%n2
			res := v - xOut.At(i, j)
			switch got := s.At(i, j); {
			case math.IsNaN(v):
				if got != 0 {
					t.Fatalf("%s: S(%d, %d) = %v at a missing entry", c.name, i, j, got)
				}
			case math.Abs(res) <= tol && got != 0, math.Abs(res) > tol && got != res:
				t.Fatalf("%s: S(%d, %d) = %v for the residual %v", c.name, i, j, got, res)
			}
			if s.At(i, j) != 0 {
				nonzero++
			}
		}
		if c.name == "missing" {
			if sum["missing"] != float64(missing) || sum["empty_rows"] != 1.0 || !strings.Contains(errs, "warning: 1 rows and 0 columns have no entry") {
				t.Errorf("missing %v (want %d), empty rows %v, stderr %q", sum["missing"], missing, sum["empty_rows"], errs)
			}
			// Row 4 is not recoverable; every other entry is.
			var d mat.Dense
			d.Sub(xOut, x)
			for i := range n1 {
				if e := mat.Norm(d.RowView(i), 2) / mat.Norm(x.RowView(i), 2); i != 4 && e > 1e-8 {
					t.Errorf("row %d recovered to %v", i, e)
				}
			}
			if nonzero != 0 {
				t.Errorf("S.npy has %d nonzero entries without outliers", nonzero)
			}
		}
		if !slices.Contains(anySlice(sum["files"]), "S.npy") {
			t.Errorf("%s: files %v", c.name, sum["files"])
		}
	}
}

func anySlice(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// TestEntriesBadInput gives bad entries, one fault at a time: each is one
// line on stderr naming the flag, the file and what is wrong, exit 2, and
// nothing written.
func TestEntriesBadInput(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	generate(t, data, "--problem", "mc", "--n", "10", "--r", "2", "--p", "0.8")
	rows, cols := readInts(t, filepath.Join(data, "rows.npy")), readInts(t, filepath.Join(data, "cols.npy"))
	values := readVector(t, filepath.Join(data, "values.npy"))
	m := len(values)
	f := func(name string) string { return filepath.Join(dir, name) }
	ints := func(name string, v []int64) string { writeInts(t, f(name), "<i8", v); return f(name) }
	floats := func(name string, v []float64) string { writeNpy(t, f(name), []int{len(v)}, v); return f(name) }
	text := func(name, body string) string { os.WriteFile(f(name), []byte(body), 0o644); return f(name) }
	R, C, V := filepath.Join(data, "rows.npy"), filepath.Join(data, "cols.npy"), filepath.Join(data, "values.npy")

	neg := slices.Clone(rows)
	neg[3] = -2
	dup := slices.Clone(cols)
	dup[1] = dup[0] // rows[0] == rows[1]: the same row
	nanV := slices.Clone(values)
	nanV[5] = math.NaN()
	infV := slices.Clone(values)
	infV[6] = math.Inf(-1)
	var boolB bytes.Buffer
	dataio.WriteBool(&boolB, []int{m}, make([]bool, m))
	os.WriteFile(f("bool.npy"), boolB.Bytes(), 0o644)
	dense := make([]float64, 12)
	dense[5] = math.Inf(1)
	allNaN := slices.Repeat([]float64{math.NaN()}, 12)

	coo := func(r, c, v string, extra ...string) []string {
		return append([]string{"--rows", r, "--cols", c, "--values", v, "--shape", "10x10", "--rank", "2"}, extra...)
	}
	cases := []struct {
		args []string
		want string
	}{
		{coo(ints("neg.npy", neg), C, V), "--rows " + f("neg.npy") + ": entry [3] is -2, outside the 10 rows [0, 10)"},
		{coo(R, C, V, "--shape", "10x9"), "--cols " + C + ": entry [" + strconv.Itoa(slices.Index(cols, 9)) + "] is 9, outside the 9 columns"},
		{coo(V, C, V), "--rows " + V + `: dtype "<f8" (float): indices must be integers`},
		{coo(R, f("bool.npy"), V), `--cols ` + f("bool.npy") + `: dtype "|b1" (bool): indices must be integers, not a mask`},
		{coo(R, ints("short.npy", cols[1:]), V), fmt.Sprintf("%d elements, but %s has %d: the three arrays must have the same length", m-1, R, m)},
		{coo(R, C, floats("nan.npy", nanV)), "--values " + f("nan.npy") + ": entry [5] is NaN"},
		{coo(R, C, floats("inf.npy", infV)), "entry [6] is -Inf"},
		{coo(R, ints("dup.npy", dup), V), fmt.Sprintf("entries 0 and 1 are both (%d, %d): each entry may be observed once", rows[0], cols[0])},
		{coo(ints("few_r.npy", rows[:39]), ints("few_c.npy", cols[:39]), floats("few_v.npy", values[:39])), "--rows " + f("few_r.npy") + ": 39 entries are fewer than the (n1+n2)·r = 40 unknowns"},
		{coo(R, C, V, "--shape", "10by10"), "--shape 10by10: want N1xN2"},
		{[]string{"--rows", R, "--cols", C, "--values", V, "--rank", "2"}, "--shape: missing"},
		{[]string{"--rows", R, "--values", V, "--shape", "10x10", "--rank", "2"}, "--cols: missing"},
		{coo(R, C, V, "--holdout", "1"), "--holdout 1: the fraction held out must lie in (0, 1)"},
		{coo(R, C, V, "--truth-left", filepath.Join(data, "L_star.npy")), "--truth-right: missing"},
		{coo(R, C, V, "--truth-left", filepath.Join(data, "L_star.npy"), "--truth-right", filepath.Join(data, "R_star.npy"), "--shape", "11x10"), "--truth-left " + filepath.Join(data, "L_star.npy") + ": shape (10, 2), want (11, 2) for the 11×10 matrix"},
		{coo(R, C, V, "--rank", "11"), "--rank 11: must lie in [1, min(n1, n2)] = [1, 10]"},
		{coo(R, C, V, "--n", "5"), "--n 5: sets up a synthetic problem"},
		{coo(R, C, V, "--seed", "3"), "--seed 3: with entry files, seeds the draw of --holdout only"},
		{coo(R, C, V, "--y", V), "--y " + V + ": applies to --sensing or --quadratic files"},
		{coo(R, C, V, "--ratings", "r.csv"), "--ratings r.csv: give either --rows or --ratings"},
		{coo(R, C, V, "--sensing", "A.npy"), "--sensing A.npy: give either --sensing/--quadratic files or entries"},
		{[]string{"--ratings", text("nocol.csv", "userId,rating\n1,3\n"), "--rank", "1"}, `line 1: the header "userId,rating" has no item column`},
		{[]string{"--ratings", text("nan.csv", "userId,movieId,rating\n1,1,3\n2,1,x\n"), "--rank", "1"}, `--ratings ` + f("nan.csv") + `: line 3: rating "x" is not a number`},
		{[]string{"--ratings", text("dup.csv", "userId,movieId,rating\n1,1,3\n2,1,4\n\n1,1,5\n"), "--rank", "1"}, "lines 2 and 5 both rate user 1, item 1"},
		{[]string{"--ratings", text("ok.csv", "userId,movieId,rating\n1,1,3\n"), "--rank", "1", "--shape", "3x3"}, "--shape 3x3: does not apply to the recommender"},
		{[]string{"--ratings", f("ok.csv"), "--lambda", "0.05", "--lists=false"}, "--lists false: applies to --model bayes or ridge, not to the plain low-rank completion that --lambda, a flag of its solver, chose"},
		{[]string{"--ratings", f("ok.csv"), "--model", "lowrank", "--lists=false"}, "--lists false: applies to --model bayes or ridge, not to the plain low-rank completion (--model lowrank)"},
		{[]string{"--ratings", f("ok.csv"), "--model", "ridge", "--loss", "l1"}, "--loss l1: applies to --model lowrank, the plain low-rank completion, not to --model ridge"},
		{[]string{"--ratings", f("huge.csv")}, "--ratings " + text("huge.csv", "1,1,3\n2,1,1e39\n") + ": line 2: rating 1e+39 is beyond the range of the float32"},
		{[]string{"--ratings", text("tiny.csv", "1,1,5\n"), "--rank", "2", "--iters", "5"}, "--rank 2: must be at most 1, the fewer of the 1 users and 1 items"}, // it panicked
		{[]string{"--masked", floats("vec.npy", values), "--rank", "1"}, "want a non-empty matrix (n1, n2)"},
		{[]string{"--masked", text("empty.npy", ""), "--rank", "1"}, "empty file"},
		{[]string{"--masked", func() string { writeNpy(t, f("dinf.npy"), []int{3, 4}, dense); return f("dinf.npy") }(), "--rank", "1"}, "entry (1, 1) is +Inf: want a finite value, or NaN for a missing one"},
		{[]string{"--masked", func() string { writeNpy(t, f("dnan.npy"), []int{3, 4}, allNaN); return f("dnan.npy") }(), "--rank", "1"}, "every entry is NaN"},
		{[]string{"--problem", "ms", "--p", "0.5"}, "--p 0.5: applies to --problem mc"},
		{[]string{"--problem", "mc", "--m", "500"}, "--m 500: the entries of --problem mc are drawn, not counted: set --p"},
		{[]string{"--problem", "mc", "--n", "20", "--r", "2", "--p", "0.05"}, "--p 0.05: 15 entries are fewer than the (n1+n2)·r = 80 unknowns"},
		{[]string{"--problem", "rpca", "--p", "0.5"}, "--p 0.5: robust PCA observes every entry"},
		{[]string{"--problem", "mc", "--holdout", "0.1"}, "--holdout 0.1: applies to entries read from files"},
	}
	for _, c := range cases {
		out := f("out")
		args := append([]string{"solve"}, c.args...)
		if !slices.Contains(c.args, "--problem") {
			args = append(args, "--out", out)
		}
		code, stdout, errs := cli(t, args...)
		if code != 2 || stdout != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v:\nexit %d, stderr %q\nwant 2 and %q", c.args, code, errs, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: %s created", c.args, out)
			os.RemoveAll(out)
		}
	}

	// generate refuses the Gaussian models' flags for the entry models.
	code, _, errs := cli(t, "generate", "--problem", "mc", "--order", "F", "--out", f("g"))
	if code != 2 || !strings.Contains(errs, "--order F: applies to A.npy of --problem ms or qs") {
		t.Errorf("generate --order: exit %d, %q", code, errs)
	}
}

// TestEntriesTooBigForMemory asks for entry problems of hundreds of GB:
// refused before anything is allocated, with what would fit.
func TestEntriesTooBigForMemory(t *testing.T) {
	for _, c := range []struct {
		args []string
		hint string
	}{
		{[]string{"--problem", "mc", "--n", "100000", "--r", "2", "--p", "1"}, "it fits with at most --p "},
		{[]string{"--problem", "rpca", "--n", "100000", "--r", "2"}, "as --problem mc --p "},
	} {
		cfg := synth.Config{Kind: synth.Completion, N1: 100000, Rank: 2, P: 1}
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		if avail, ok := mem.Available(); !ok || avail >= cfg.Bytes() {
			t.Skipf("this machine has room for %d bytes", cfg.Bytes())
		}
		for _, cmd := range []string{"solve", "generate"} {
			args := append([]string{cmd}, c.args...)
			if cmd == "generate" {
				args = append(args, "--out", filepath.Join(t.TempDir(), "big"))
			}
			code, out, errs := cli(t, args...)
			if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "GB of memory but this machine has") || !strings.Contains(errs, c.hint) {
				t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
			}
		}
	}
}

// TestValidationMemory: the memory that solve asks for counts the second,
// split copy of the entries that --rank auto validates with (a problem
// twice the memory available, refused either way, before anything is
// allocated).
func TestValidationMemory(t *testing.T) {
	avail, ok := mem.Available()
	if !ok {
		t.Skip("the available memory is not known here")
	}
	n := 100000
	cfg := synth.Config{Kind: synth.Completion, N1: n, N2: n, Rank: 2, P: 1}
	cfg.P = 2 * float64(avail) / float64(cfg.Bytes())
	if err := cfg.Validate(); err != nil {
		t.Skip(err)
	}
	m := int(float64(n) * float64(n) * cfg.P)
	p := strconv.FormatFloat(cfg.P, 'g', -1, 64)
	for _, c := range []struct {
		rank string
		need int64
	}{{"2", cfg.Bytes()}, {"auto", cfg.Bytes() + completion.ValidationBytes(m, n)}} {
		args := []string{"solve", "--problem", "mc", "--n", strconv.Itoa(n), "--r", "2", "--p", p, "--rank", c.rank}
		code, out, errs := cli(t, args...)
		if want := "needs about " + mem.Format(c.need) + " of memory"; code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q, want %q", args, code, out, errs, want)
		}
	}
}

// TestStaleEntryOutputs solves into a directory that holds the outputs of
// a --masked solve: a COO solve leaves no X.npy or S.npy there.
func TestStaleEntryOutputs(t *testing.T) {
	dir := t.TempDir()
	writeNpy(t, filepath.Join(dir, "y.npy"), []int{12, 10}, lowRank(1, 12, 10, 1).RawMatrix().Data)
	out := filepath.Join(dir, "out")
	if code, _, errs := cli(t, "solve", "--masked", filepath.Join(dir, "y.npy"), "--rank", "1", "--iters", "5", "--out", out); code != 0 {
		t.Fatal(errs)
	}
	data := filepath.Join(dir, "data")
	generate(t, data, "--problem", "mc", "--n", "12", "--r", "1", "--p", "0.8")
	code, _, errs := cli(t, "solve", "--rows", filepath.Join(data, "rows.npy"), "--cols", filepath.Join(data, "cols.npy"),
		"--values", filepath.Join(data, "values.npy"), "--shape", "12x12", "--rank", "1", "--iters", "5", "--out", out)
	if code != 0 {
		t.Fatal(errs)
	}
	for _, name := range []string{"X.npy", "S.npy"} {
		if _, err := os.Stat(filepath.Join(out, name)); err == nil {
			t.Errorf("%s left from the earlier solve", name)
		}
	}
}

// TestHoldoutIgnoresFileOrder solves the same entries given in two orders
// with --holdout: the entries held out, and so the factors, are the same,
// since the draw runs over the sorted entries.
func TestHoldoutIgnoresFileOrder(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	generate(t, data, "--problem", "mc", "--n", "30", "--r", "2", "--p", "0.6", "--kappa", "2")
	rows, cols := readInts(t, filepath.Join(data, "rows.npy")), readInts(t, filepath.Join(data, "cols.npy"))
	values := readVector(t, filepath.Join(data, "values.npy"))
	perm := rand.New(rand.NewPCG(9, 9)).Perm(len(values))
	pr, pc, pv := make([]int64, len(perm)), make([]int64, len(perm)), make([]float64, len(perm))
	for k, p := range perm {
		pr[k], pc[k], pv[k] = rows[p], cols[p], values[p]
	}
	writeInts(t, filepath.Join(dir, "r.npy"), "<i8", pr)
	writeInts(t, filepath.Join(dir, "c.npy"), "<i4", pc)
	writeNpy(t, filepath.Join(dir, "v.npy"), []int{len(pv)}, pv)
	var outs [2]string
	for i, f := range [][3]string{
		{filepath.Join(data, "rows.npy"), filepath.Join(data, "cols.npy"), filepath.Join(data, "values.npy")},
		{filepath.Join(dir, "r.npy"), filepath.Join(dir, "c.npy"), filepath.Join(dir, "v.npy")},
	} {
		outs[i] = filepath.Join(dir, fmt.Sprint("out", i))
		code, _, errs := cli(t, "solve", "--rows", f[0], "--cols", f[1], "--values", f[2], "--shape", "30x30", "--rank", "2",
			"--holdout", "0.2", "--seed", "3", "--method", "scaledgd", "--iters", "50", "--out", outs[i])
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
	}
	for _, name := range []string{"holdout.csv", "L.npy", "R.npy"} {
		a, _ := os.ReadFile(filepath.Join(outs[0], name))
		b, _ := os.ReadFile(filepath.Join(outs[1], name))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs between the two orders of the same entries", name)
		}
	}
	// Another seed holds out other entries.
	out := filepath.Join(dir, "other")
	cli(t, "solve", "--rows", filepath.Join(dir, "r.npy"), "--cols", filepath.Join(dir, "c.npy"), "--values", filepath.Join(dir, "v.npy"),
		"--shape", "30x30", "--rank", "2", "--holdout", "0.2", "--seed", "4", "--method", "scaledgd", "--iters", "50", "--out", out)
	a, _ := os.ReadFile(filepath.Join(outs[0], "holdout.csv"))
	b, _ := os.ReadFile(filepath.Join(out, "holdout.csv"))
	if len(b) == 0 || bytes.Equal(a, b) {
		t.Error("--seed 4 held out the entries of --seed 3")
	}
}

// TestSolveMaskedRankAuto: --rank auto on a masked matrix with outliers
// chooses the true rank 2 by validation, the first whose fit is exact,
// says so, and recovers X*.
func TestSolveMaskedRankAuto(t *testing.T) {
	dir := t.TempDir()
	const n1, n2 = 40, 30
	x := lowRank(9, n1, n2, 2)
	rng := rand.New(rand.NewPCG(10, 0))
	y := slices.Clone(x.RawMatrix().Data)
	for k := range y {
		switch u := rng.Float64(); {
		case u < 0.3:
			y[k] = math.NaN()
		case u < 0.33:
			y[k] += 20 * (rng.Float64() - 0.5)
		}
	}
	in, out := filepath.Join(dir, "y.npy"), filepath.Join(dir, "out")
	writeNpy(t, in, []int{n1, n2}, y)
	code, stdout, errs := cli(t, "solve", "--masked", in, "--rank", "auto", "--tol", "1e-10", "--iters", "3000", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	sum := readSummary(t, filepath.Join(out, "summary.json"))
	tried, _ := sum["rank_tried"].([]any)
	if sum["rank"] != 2.0 || len(tried) != 2 || sum["rank_exact"] != true || !strings.Contains(stdout, "2 the smallest fitted and predicted exactly") {
		t.Errorf("rank %v from %v; output:\n%s", sum["rank"], tried, stdout)
	}
	var d mat.Dense
	d.Sub(readMatrix(t, filepath.Join(out, "X.npy")), x)
	if e := mat.Norm(&d, 2) / mat.Norm(x, 2); e > 1e-8 {
		t.Errorf("X.npy at relative error %.3g", e)
	}
}

// TestSolveMaskedRidge: a masked matrix that is only approximately low
// rank (rank 2 plus dense noise) fitted at rank 6: by default the penalty
// and the iterations are chosen by validation, and the summary says so;
// --ridge none fits without, --ridge 0.5 with that penalty, and a bad
// value is refused naming the flag.
func TestSolveMaskedRidge(t *testing.T) {
	dir := t.TempDir()
	const n1, n2 = 60, 50
	x := lowRank(3, n1, n2, 2)
	rng := rand.New(rand.NewPCG(4, 0))
	y := slices.Clone(x.RawMatrix().Data)
	for k := range y {
		if rng.Float64() < 0.4 {
			y[k] = math.NaN()
			continue
		}
		y[k] += 0.3 * rng.NormFloat64()
	}
	in := filepath.Join(dir, "y.npy")
	writeNpy(t, in, []int{n1, n2}, y)
	run := func(name string, args ...string) (map[string]any, string) {
		out := filepath.Join(dir, name)
		code, stdout, errs := cli(t, append([]string{"solve", "--masked", in, "--rank", "6", "--out", out}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		return readSummary(t, filepath.Join(out, "summary.json")), stdout
	}
	auto, stdout := run("auto")
	tried, _ := auto["ridge_tried"].([]any)
	if auto["status"] != "validated" && auto["status"] != "plateau" || !(auto["ridge"].(float64) > 0) || len(tried) < 2 ||
		!strings.Contains(stdout, "ridge") || !strings.Contains(stdout, "chosen by validation") {
		t.Errorf("default: status %v, ridge %v from %v; output:\n%s", auto["status"], auto["ridge"], tried, stdout)
	}
	none, _ := run("none", "--ridge", "none")
	if none["ridge"] != 0.0 || none["ridge_tried"] != nil {
		t.Errorf("--ridge none: ridge %v, tried %v", none["ridge"], none["ridge_tried"])
	}
	fixed, _ := run("fixed", "--ridge", "0.5")
	if fixed["ridge"] != 0.5 || fixed["ridge_tried"] != nil {
		t.Errorf("--ridge 0.5: ridge %v, tried %v", fixed["ridge"], fixed["ridge_tried"])
	}
	for _, bad := range []string{"-1", "nan", "big"} {
		code, _, errs := cli(t, "solve", "--masked", in, "--rank", "6", "--ridge", bad)
		if code != 2 || !strings.Contains(errs, "--ridge") || strings.Count(errs, "\n") != 1 {
			t.Errorf("--ridge %s: exit %d, %q", bad, code, errs)
		}
	}
}

// TestSolveRestarted: issue 24's small matrix with outliers (n = 100)
// is recovered from the spectral start truncated at RestartTruncation (seed 2)
// or, where that fit is not exact either, from the convex start (seed 1),
// and the summary and the status line say so, with the earlier fits'
// time.
func TestSolveRestarted(t *testing.T) {
	for _, c := range []struct{ seed, init, trim string }{{"2", "spectral", "0.4"}, {"1", "convex", "none"}} {
		args := []string{"solve", "--problem", "mc", "--n", "100", "--r", "2", "--p", "0.3", "--kappa", "100", "--ps", "0.1",
			"--seed", c.seed, "--tol", "1e-10", "--iters", "3000"}
		code, out, errs := cli(t, append(args, "--json")...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var s map[string]any
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatal(err)
		}
		if s["status"] != "converged" || s["restarted"] != true || s["restart_init"] != c.init || !(s["first_seconds"].(float64) > 0) || s["init_trim"] != c.trim {
			t.Errorf("seed %s: status %v, restarted %v from %v, first %v s, init_trim %v", c.seed, s["status"], s["restarted"], s["restart_init"], s["first_seconds"], s["init_trim"])
		}
		if _, out, _ = cli(t, args...); !strings.Contains(out, "from another start ("+c.init+")") || !strings.Contains(out, " other fit") {
			t.Errorf("seed %s: the summary does not say the fit is from another start:\n%s", c.seed, out)
		}
	}
}

// TestTimeLineNamesEveryEarlierFit: a fit returned after validation fits
// and from another start names both, in its fits line and in its time
// line, whose parts add up to the whole.
func TestTimeLineNamesEveryEarlierFit(t *testing.T) {
	s := &report.Summary{Draw: &report.Draw{}}
	s.Status, s.Seconds, s.SetupSeconds = "converged", 1, 0.25
	s.Restarted, s.RestartInit = true, "convex"
	s.Fits = []report.Fit{
		{Kind: "validation", Rank: 3, Init: "spectral", Truncation: "median", Iterations: 40, Seconds: 1.5},
		{Kind: "validation", Rank: 5, Init: "spectral", Truncation: "median", Iterations: 60, Seconds: 1},
		{Kind: "not kept", Rank: 5, Init: "spectral", Truncation: "0.4", Status: "iteration-limit", Iterations: 1000, Seconds: 3},
	}
	s.FitsSeconds, s.SolveSeconds, s.FinishSeconds, s.WallSeconds = 5.5, 6.75, 0.5, 7.5
	var b strings.Builder
	s.Print(&b, "")
	for _, want := range []string{
		"fits       3 besides the one returned: 2 validation fits on 95% of the entries (ranks 3, 5; 100 iterations, 2.5 s); " +
			"not kept: rank 5 from the spectral start dropping the largest 40% of |y_i|, iteration-limit after 1000 iterations (3 s)",
		"time       1 s solving (the fit returned), 5.5 s in 3 other fits, 0.25 s choosing between fits; 0.25 s reading or drawing and initializing; 0.5 s evaluating and writing; 7.5 s in all",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("want %q in\n%s", want, b.String())
		}
	}
}

// TestRatingsTooBigForMemory: a ratings file whose lines need more memory
// than there is is refused before it is read, in one line that says how
// many ratings would fit and whether the ratings model alone would; 5 x
// 10^8 ratings fit 24 GB without the lists.
func TestRatingsTooBigForMemory(t *testing.T) {
	err := ratingsFit("big.csv", 1000000000, ratingsBytes(true), modelBytes, 24000000000, true)
	want := "--ratings big.csv (1000000000 lines) needs about 140.0 GB of memory but this machine has 24.0 GB available: about 140 bytes a rating, so 171428571 ratings at most"
	if err == nil || err.Error() != want {
		t.Fatalf("%v\nwant %s", err, want)
	}
	var ee exitError
	if !errors.As(err, &ee) || ee.code != exitBadInput {
		t.Errorf("not an exit %d: %#v", exitBadInput, err)
	}
	err = ratingsFit("big.csv", 200000000, ratingsBytes(true), modelBytes, 24000000000, true)
	want = "--ratings big.csv (200000000 lines) needs about 28.0 GB of memory but this machine has 24.0 GB available: about 140 bytes a rating, so 171428571 ratings at most; the ratings model alone (--lists=false) needs about 40 bytes a rating and fits"
	if err == nil || err.Error() != want {
		t.Fatalf("%v\nwant %s", err, want)
	}
	for _, ok := range []error{ratingsFit("small.csv", 1000, ratingsBytes(true), modelBytes, 24000000000, true), ratingsFit("big.csv", 1000000000, ratingsBytes(true), modelBytes, 0, false),
		ratingsFit("yahoo.csv", 500000000, ratingsBytes(false), 0, 24000000000, true)} {
		if ok != nil {
			t.Errorf("refused: %v", ok)
		}
	}
	// Implicit feedback fits the lists alone: no other choice to offer.
	if err := ratingsFit("clicks.csv", 200000000, listsBytes, 0, 24000000000, true); err == nil || strings.Contains(err.Error(), "--lists=false") {
		t.Errorf("interactions: %v", err)
	}
}
