package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/dataio"
	"github.com/scaledsm/scaledsm/internal/atomicio"
	"github.com/scaledsm/scaledsm/internal/csvfmt"
	"github.com/scaledsm/scaledsm/recommend"
	"github.com/scaledsm/scaledsm/synth"
)

// entryDefaults returns the method, loss and step that a solve of the
// entry models (matrix completion, robust PCA) uses when --method, --loss
// and --step are not given: the library's DefaultSettings for Entries.
func entryDefaults() scaledsm.Settings {
	return scaledsm.DefaultSettings(&scaledsm.Entries{})
}

// entryKind reports whether a kind observes entries.
func entryKind(k synth.Kind) bool { return k == synth.Completion || k == synth.RobustPCA }

// entryData is what a problem of the entry models carries beside the
// operator: its summary, the entries held out, the ids of a ratings file
// and the shape of a dense (--masked) input.
type entryData struct {
	json           entriesJSON
	test           heldOut
	rowIDs, colIDs []int64 // --ratings: the id of each row and column
	masked         bool    // --masked: X.npy and S.npy are written
	// corrupted, for a synthetic problem, draws the outliers' support.
	corrupted func() []bool
}

// supportLimit is the most entries whose outlier support a solve
// estimates: two m-sized buffers at 16 bytes an entry, 256 MB.
const supportLimit = 1 << 24

// outlierSupport counts the sparse part's support at f (see
// scaledsm.Entries.SparsePart) and scores it against the synthetic
// problem's outliers: for a synthetic problem, whose outliers are known,
// and a masked matrix, whose S.npy is that support; not for entries and
// ratings from files, where its two m-sized buffers would raise the peak
// memory of the solve for a count.
func (d *entryData) outlierSupport(p scaledsm.Problem, f scaledsm.Factors) error {
	op, ok := p.Op.(*scaledsm.Entries)
	if !ok || len(p.Y) > supportLimit || (d.corrupted == nil && !d.masked) {
		return nil
	}
	s, err := op.SparsePart(p.Y, f)
	if err != nil {
		return err
	}
	found := 0
	for _, v := range s {
		if v != 0 {
			found++
		}
	}
	d.json.OutliersFound = &found
	if d.corrupted == nil {
		return nil
	}
	tp, outliers := 0, 0
	for k, c := range d.corrupted() {
		if c {
			outliers++
			if s[k] != 0 {
				tp++
			}
		}
	}
	if found > 0 {
		d.json.OutlierPrecision = finite(float64(tp) / float64(found))
	}
	if outliers > 0 {
		d.json.OutlierRecall = finite(float64(tp) / float64(outliers))
	}
	return nil
}

// heldOut are the entries kept out of the fit.
type heldOut struct {
	rows, cols []int32
	values     []float64
}

// newEntryData counts the rows and columns of op with no entry.
func newEntryData(op *scaledsm.Entries) *entryData {
	m, n1, n2 := op.Dims()
	d := &entryData{json: entriesJSON{Observed: float64(m) / (float64(n1) * float64(n2))}}
	start := op.Start()
	for i := range n1 {
		if start[i+1] == start[i] {
			d.json.EmptyRows++
		}
	}
	seen := make([]bool, n2)
	for _, j := range op.Cols() {
		seen[j] = true
	}
	for _, s := range seen {
		if !s {
			d.json.EmptyCols++
		}
	}
	return d
}

// enoughEntries refuses fewer entries than the (n1+n2)·r unknowns of the
// factors: what names the input that set their number, as "--p 0.01".
func enoughEntries(op *scaledsm.Entries, r int, what string) error {
	m, n1, n2 := op.Dims()
	if need := (n1 + n2) * r; m < need {
		return exitError{fmt.Errorf("%s: %d entries are fewer than the (n1+n2)·r = %d unknowns of a rank-%d %d×%d matrix; nothing can be recovered",
			what, m, need, r, n1, n2), exitBadInput}
	}
	return nil
}

// entryFlags name the files of a matrix given by some of its entries.
type entryFlags struct {
	rows, cols, values, shape string
	truthLeft, truthRight     string
	ratings, masked           string
	holdout                   float64
	fs                        *flag.FlagSet
}

// Flags of the entry files, which also name the library's inputs.
var entryInputs = map[string]string{"rank": "rank", "entries": "rows", "shape": "shape"}

// entryOnly are the flags of entry files.
var entryOnly = []string{"rows", "cols", "values", "shape", "masked", "truth-left", "truth-right", "holdout"}

// ratingsFlags are the flags of a ratings file, in solve's usage.
var ratingsFlags = []string{"ratings", "columns", "model", "test", "nu", "validation", "penalty"}

func (e *entryFlags) register(fs *flag.FlagSet) {
	e.fs = fs
	fs.StringVar(&e.rows, "rows", "", "matrix completion from COO triplets: the row of each entry, a .npy file of integers (any NumPy\ninteger type), shape (m,); with --cols, --values and --shape")
	fs.StringVar(&e.cols, "cols", "", "the column of each entry: integers, shape (m,)")
	fs.StringVar(&e.values, "values", "", "the value of each entry: float64 or float32, shape (m,)")
	fs.StringVar(&e.shape, "shape", "", "the matrix's shape N1xN2, as 1000x1000")
	fs.StringVar(&e.ratings, "ratings", "", "a ratings file: user and item ids and a rating per line, by a header's names (userId,movieId,rating,\nuser_id,item_id, ...) or the first three columns; commas, tabs, '::', ';' or spaces (MovieLens's\nCSV, u.data, ratings.dat). Fits the recommender, which chooses its rank (--rank sets it)")
	fs.StringVar(&e.masked, "masked", "", "a dense matrix in a .npy file, NaN for a missing entry (robust PCA when none is missing);\nX.npy = L Rᵀ and S.npy = Y - X, with the entries X explains set to 0, are written too")
	fs.StringVar(&e.truthLeft, "truth-left", "", "optional: the factor L* of X* = L* R*ᵀ, a .npy file of shape (n1, r), to report the relative error")
	fs.StringVar(&e.truthRight, "truth-right", "", "optional, with --truth-left: R*, shape (n2, r)")
	fs.Float64Var(&e.holdout, "holdout", 0, "keep this fraction of the entries, drawn at random with --seed, out of the fit, and report\nthe RMSE and MAE of the predictions on them (test_rmse, test_mae; gross errors among them count in\nfull) and the fraction predicted exactly, as fit_fraction (test_fit_fraction); they go to holdout.csv")
}

// given reports whether the problem comes from entry files.
func (e *entryFlags) given() bool {
	return e.rows != "" || e.cols != "" || e.values != "" || e.ratings != "" || e.masked != ""
}

// reject returns the error for an entry flag given with another kind of
// problem, described by other.
func (e *entryFlags) reject(other string) error {
	set := setFlags(e.fs)
	for _, name := range entryOnly {
		if set[name] {
			return badFlag(name, flagValue(e.fs, name), "applies to entries read from files (--rows, --ratings or --masked), not to "+other)
		}
	}
	return nil
}

// fromEntries is the source of a problem of entries read from files.
type fromEntries struct {
	flags    entryFlags
	n1, n2   int // --shape
	rank     int
	ps       float64 // --ps, NaN when not given
	holdout  float64
	seed     uint64
	fileFlag string        // the flag that names the entries' file: rows, ratings or masked
	layout   dataio.Layout // --columns of --ratings
}

// config checks the flags of a solve from entry files, before any file is
// read; ff, sp hold the shared flags (--rank; --ps, --seed).
func (e *entryFlags) config(ff *fileFlags, sp *synthFlags) (*fromEntries, error) {
	set := setFlags(e.fs)
	for _, name := range []string{"sensing", "quadratic", "y", "truth", "n1"} {
		if set[name] {
			return nil, badFlag(name, flagValue(e.fs, name), "applies to --sensing or --quadratic files, not to entries")
		}
	}
	for _, name := range syntheticOnly {
		if set[name] && !(name == "seed" && set["holdout"]) {
			reason := "sets up a synthetic problem; with entry files the problem comes from the files"
			switch name {
			case "r":
				reason = "is the rank of a synthetic problem; with files, give --rank"
			case "seed":
				reason = "with entry files, seeds the draw of --holdout only"
			}
			return nil, badFlag(name, flagValue(e.fs, name), reason)
		}
	}
	if set["n2"] {
		return nil, badFlag("n2", flagValue(e.fs, "n2"), "with entry files, give the shape as --shape N1xN2")
	}
	src := &fromEntries{flags: *e, rank: int(ff.rank), ps: math.NaN(), holdout: e.holdout, seed: sp.seed}
	coo := e.rows != "" || e.cols != "" || e.values != ""
	switch {
	case coo && e.ratings != "":
		return nil, badFlag("ratings", e.ratings, "give either --rows, --cols, --values or --ratings, not both")
	case coo && e.masked != "":
		return nil, badFlag("masked", e.masked, "give either --rows, --cols, --values or --masked, not both")
	case e.ratings != "" && e.masked != "":
		return nil, badFlag("masked", e.masked, "give either --ratings or --masked, not both")
	case coo:
		src.fileFlag = "rows"
		for _, f := range [][2]string{{"rows", e.rows}, {"cols", e.cols}, {"values", e.values}} {
			if f[1] == "" {
				return nil, usageError{"--" + f[0] + ": missing: COO entries need --rows, --cols and --values (and --shape)"}
			}
		}
		if e.shape == "" {
			return nil, usageError{"--shape: missing: give the matrix's shape N1xN2"}
		}
		var err error
		if src.n1, src.n2, err = parseShape(e.shape); err != nil {
			return nil, badFlag("shape", e.shape, err.Error())
		}
	case e.ratings != "":
		src.fileFlag = "ratings"
	default:
		src.fileFlag = "masked"
	}
	if e.shape != "" && !coo {
		return nil, badFlag("shape", e.shape, fmt.Sprintf("applies to --rows files; --%s gives the shape", src.fileFlag))
	}
	switch {
	case !set["rank"]:
		return nil, usageError{"--rank: missing: give the rank r of the matrix to recover"}
	case ff.rank < 1 && ff.rank != scaledsm.AutoRank:
		return nil, badFlag("rank", int(ff.rank), "must be at least 1")
	case set["ps"] && !(sp.ps >= 0 && sp.ps < 0.5):
		return nil, badFlag("ps", sp.ps, "the fraction of entries assumed corrupted must lie in [0, 0.5)")
	case (e.truthLeft == "") != (e.truthRight == ""):
		if e.truthLeft == "" {
			return nil, usageError{"--truth-left: missing: the truth is given as both factors, --truth-left and --truth-right"}
		}
		return nil, usageError{"--truth-right: missing: the truth is given as both factors, --truth-left and --truth-right"}
	case set["holdout"] && !(e.holdout > 0 && e.holdout < 1):
		return nil, badFlag("holdout", e.holdout, "the fraction held out must lie in (0, 1)")
	}
	if set["ps"] {
		src.ps = sp.ps
	}
	return src, nil
}

// parseShape parses N1xN2.
func parseShape(s string) (n1, n2 int, err error) {
	a, b, ok := strings.Cut(strings.ToLower(s), "x")
	if !ok {
		a, b, ok = strings.Cut(s, "×")
	}
	if !ok {
		return 0, 0, errors.New("want N1xN2, as 1000x1000")
	}
	n1, err1 := strconv.Atoi(strings.TrimSpace(a))
	n2, err2 := strconv.Atoi(strings.TrimSpace(b))
	switch {
	case err1 != nil || err2 != nil:
		return 0, 0, errors.New("want N1xN2 with integers, as 1000x1000")
	case n1 < 1 || n2 < 1:
		return 0, 0, errors.New("both dimensions must be at least 1")
	case n2 > math.MaxInt32 || n1 > math.MaxInt32:
		return 0, 0, errors.New("a dimension above 2^31")
	}
	return n1, n2, nil
}

// entryBytes is the memory of m entries once loaded and solved, beside
// what reading them took (read bytes per entry): the operator's column
// index and row order while it sorts, the observations, and a solve's
// vectors, as synth.Config.Bytes counts them.
func entryBytes(m int64, read int64) int64 { return m * (read + 4 + 8 + 8 + 3*8) }

func (s *fromEntries) bytes(validating bool) (int64, error) {
	// validation adds ValidationBytes of m entries of n1 rows (ratings:
	// of at most m rows, whose ids are not read yet).
	extra := func(m, n1 int) int64 {
		if !validating {
			return 0
		}
		return scaledsm.ValidationBytes(m, n1)
	}
	switch s.fileFlag {
	case "rows":
		m, err := dataio.EntryFiles{Rows: s.flags.rows, Cols: s.flags.cols, Values: s.flags.values, N1: s.n1, N2: s.n2}.Size()
		if err != nil {
			return 0, fileError(err)
		}
		return entryBytes(int64(m), 4+4+8) + 8*int64(s.n1+1) + extra(m, s.n1), nil
	case "ratings":
		m, err := dataio.RatingsSize(s.flags.ratings)
		if err != nil {
			return 0, fileError(err)
		}
		return entryBytes(int64(m), 8+8+8+4+4) + extra(m, m), nil
	}
	b, n1, n2, err := dataio.MaskedBytes(s.flags.masked)
	if err != nil {
		return 0, fileError(err)
	}
	// X.npy and S.npy are formed densely, as the input was.
	return b + entryBytes(int64(n1)*int64(n2), 0) + 16*int64(n1)*int64(n2) + extra(n1*n2, n1), nil
}

func (s *fromEntries) fits(avail int64) string {
	return "the entries do not fit; a machine with more memory is needed"
}

func (s *fromEntries) oracle() bool              { return false }
func (s *fromEntries) inputs() map[string]string { return entryInputs }
func (s *fromEntries) truth() bool               { return s.flags.truthLeft != "" }
func (s *fromEntries) entries() bool             { return true }

func (s *fromEntries) load() (*loaded, error) {
	t0 := time.Now()
	var (
		op  *scaledsm.Entries
		y   []float64
		err error
		ed  = &entryData{}
	)
	files := &filesJSON{TruthLeft: s.flags.truthLeft, TruthRight: s.flags.truthRight}
	switch s.fileFlag {
	case "rows":
		files.Operator, files.Cols, files.Y = s.flags.rows, s.flags.cols, s.flags.values
		rows, cols, values, err := dataio.LoadEntries(dataio.EntryFiles{Rows: s.flags.rows, Cols: s.flags.cols, Values: s.flags.values, N1: s.n1, N2: s.n2})
		if err != nil {
			return nil, fileError(err)
		}
		if op, y, err = scaledsm.NewEntries(s.n1, s.n2, rows, cols, values); err != nil {
			return nil, entriesError(err, "--rows "+s.flags.rows+", --cols "+s.flags.cols)
		}
	case "ratings":
		files.Operator = s.flags.ratings
		rt, err := dataio.ReadRatingsLayout(s.flags.ratings, s.layout)
		if err != nil {
			return nil, fileError(err)
		}
		ed.rowIDs, ed.colIDs = rt.RowIDs, rt.ColIDs
		if op, y, err = scaledsm.NewEntries(len(rt.RowIDs), len(rt.ColIDs), rt.Rows, rt.Cols, rt.Values); err != nil {
			return nil, ratingsDuplicate(s.flags.ratings, s.layout, rt, err)
		}
	default:
		files.Operator = s.flags.masked
		x, err := dataio.ReadMasked(s.flags.masked)
		if err != nil {
			return nil, fileError(err)
		}
		if len(x.Cols) == 0 {
			return nil, exitError{fmt.Errorf("--masked %s: every entry is NaN", s.flags.masked), exitBadInput}
		}
		ed.masked = true
		ed.json.Missing = &x.Missing
		if op, err = scaledsm.NewEntriesCSR(x.N1, x.N2, x.Start, x.Cols); err != nil {
			return nil, entriesError(err, "--masked "+s.flags.masked)
		}
		y = x.Values
	}
	m, n1, n2 := op.Dims()
	if s.rank > min(n1, n2) {
		return nil, badFlag("rank", s.rank, fmt.Sprintf("must lie in [1, min(n1, n2)] = [1, %d] for the %d×%d matrix", min(n1, n2), n1, n2))
	}
	kind := synth.Completion
	if int64(m) == int64(n1)*int64(n2) {
		kind = synth.RobustPCA
	}
	if s.holdout > 0 {
		var test heldOut
		op, y, test, err = holdOut(op, y, s.holdout, s.seed)
		if err != nil {
			return nil, entriesError(err, "--holdout")
		}
		ed.test = test
		h, nt := s.holdout, len(test.values)
		ed.json.Holdout, ed.json.TestEntries = &h, &nt
	}
	counts := newEntryData(op)
	ed.json.Observed, ed.json.EmptyRows, ed.json.EmptyCols = counts.json.Observed, counts.json.EmptyRows, counts.json.EmptyCols
	what := fmt.Sprintf("--%s %s", s.fileFlag, files.Operator)
	if s.holdout > 0 {
		what += fmt.Sprintf(" with --holdout %g", s.holdout)
	}
	if err := enoughEntries(op, s.rank, what); err != nil {
		return nil, err
	}
	p := scaledsm.Problem{Op: op, Y: y, Rank: s.rank}
	if s.flags.truthLeft != "" {
		truth, err := readTruthFactors(s.flags.truthLeft, s.flags.truthRight, n1, n2, s.rank)
		if err != nil {
			return nil, err
		}
		p.Truth = truth
	}
	tuneGC(op)
	m, _, _ = op.Dims()
	return &loaded{
		problem: p, kind: kind, ps: s.ps, files: files, entries: ed,
		shape:   shapeJSON{Problem: kind.String(), N1: n1, N2: n2, Rank: s.rank, M: m},
		seconds: time.Since(t0).Seconds(),
	}, nil
}

// entriesError words an error of scaledsm.NewEntries about the files what.
func entriesError(err error, what string) error {
	var ie *scaledsm.InputError
	if errors.As(err, &ie) {
		return exitError{fmt.Errorf("%s: %s", what, ie.Reason), exitBadInput}
	}
	return err
}

// ratingsDuplicate words the error of scaledsm.NewEntries on the entries
// of a ratings file: a duplicate is found again and named by its lines.
func ratingsDuplicate(path string, layout dataio.Layout, rt *dataio.Ratings, err error) error {
	seen := make(map[[2]int32]int, len(rt.Rows))
	for k := range rt.Rows {
		key := [2]int32{rt.Rows[k], rt.Cols[k]}
		first, dup := seen[key]
		if !dup {
			seen[key] = k
			continue
		}
		lines, lerr := dataio.RecordLines(path, layout, first, k)
		if lerr != nil {
			break
		}
		return exitError{fmt.Errorf("--ratings %s: lines %d and %d both rate user %d, item %d: each pair may be rated once",
			path, lines[0], lines[1], rt.RowIDs[key[0]], rt.ColIDs[key[1]]), exitBadInput}
	}
	return entriesError(err, "--ratings "+path)
}

// holdoutStream is the stream of the --holdout draw.
const holdoutStream = 7 << 32

// holdOut draws each entry of op into the test set with probability f,
// from a stream of seed, in the operator's order (so the draw does not
// depend on the order of the files), and returns the operator of the rest,
// its observations and the entries held out. It reuses op's arrays.
func holdOut(op *scaledsm.Entries, y []float64, f float64, seed uint64) (*scaledsm.Entries, []float64, heldOut, error) {
	_, n1, n2 := op.Dims()
	start, cols := op.Start(), op.Cols()
	rng := rand.New(rand.NewPCG(seed, holdoutStream))
	var test heldOut
	kept := 0
	for i := range n1 {
		lo, hi := start[i], start[i+1]
		start[i] = kept
		for k := lo; k < hi; k++ {
			if rng.Float64() < f {
				test.rows = append(test.rows, int32(i))
				test.cols = append(test.cols, cols[k])
				test.values = append(test.values, y[k])
				continue
			}
			cols[kept], y[kept] = cols[k], y[k]
			kept++
		}
	}
	start[n1] = kept
	train, err := scaledsm.NewEntriesCSR(n1, n2, start, cols[:kept])
	return train, y[:kept], test, err
}

// readTruthFactors reads the factors L* (n1×r) and R* (n2×r) of the truth
// (with r = AutoRank, of the rank of L*).
func readTruthFactors(left, right string, n1, n2, r int) (scaledsm.Factors, error) {
	var f scaledsm.Factors
	for _, c := range []struct {
		flag, path string
		n          int
		dst        **mat.Dense
	}{{"truth-left", left, n1, &f.L}, {"truth-right", right, n2, &f.R}} {
		data, shape, err := dataio.ReadFile(c.path)
		if err != nil {
			var fe *dataio.FileError
			if errors.As(err, &fe) {
				err = fe.Err
			}
			return f, exitError{fmt.Errorf("--%s %s: %v", c.flag, c.path, err), exitBadInput}
		}
		if r == scaledsm.AutoRank && len(shape) == 2 && shape[1] >= 1 {
			r = shape[1] // --rank auto: the truth's own rank, the same on both sides
		}
		if len(shape) != 2 || shape[0] != c.n || shape[1] != r {
			return f, exitError{fmt.Errorf("--%s %s: shape %s, want (%d, %d) for the %d×%d matrix and --rank %d",
				c.flag, c.path, dataio.ShapeString(shape), c.n, r, n1, n2, r), exitBadInput}
		}
		for i, v := range data {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return f, exitError{fmt.Errorf("--%s %s: entry (%d, %d) is %v", c.flag, c.path, i/r, i%r, v), exitBadInput}
			}
		}
		*c.dst = mat.NewDense(c.n, r, data)
	}
	return f, nil
}

// predict returns the entry (i, j) of L Rᵀ: the one formula of the
// predictions on held-out entries and of the predict command.
func predict(l, r *mat.Dense, i, j int) float64 {
	var s float64
	for a, v := range l.RawRowView(i) {
		s += v * r.At(j, a)
	}
	return s
}

// testErrors sets the RMSE and MAE of the predictions of the factors on
// the held-out entries.
func (d *entryData) testErrors(f scaledsm.Factors) {
	if len(d.test.values) == 0 {
		return
	}
	var sq, ab float64
	fits := 0
	tol := scaledsm.FitTolerance * scaledsm.FitScale(d.test.values)
	for k, v := range d.test.values {
		e := predict(f.L, f.R, int(d.test.rows[k]), int(d.test.cols[k])) - v
		sq += e * e
		ab += math.Abs(e)
		if math.Abs(e) <= tol {
			fits++
		}
	}
	n := float64(len(d.test.values))
	d.json.TestRMSE, d.json.TestMAE = finite(math.Sqrt(sq/n)), finite(ab/n)
	d.json.TestFit = finite(float64(fits) / n)
}

// outputs returns the files the entry models add to --out: the id maps of
// a ratings file, the held-out entries with their predictions, and for a
// dense input the low-rank and sparse parts.
func (d *entryData) outputs(p scaledsm.Problem, f scaledsm.Factors) []namedWriter {
	var out []namedWriter
	if d.rowIDs != nil {
		out = append(out,
			namedWriter{"row_ids.npy", func(w io.Writer) error { return dataio.WriteInt64(w, []int{len(d.rowIDs)}, d.rowIDs) }},
			namedWriter{"col_ids.npy", func(w io.Writer) error { return dataio.WriteInt64(w, []int{len(d.colIDs)}, d.colIDs) }})
	}
	if d.json.Holdout != nil {
		out = append(out, namedWriter{"holdout.csv", func(w io.Writer) error { return d.writeHoldout(w, f) }})
	}
	if d.masked {
		x := f.Product()
		out = append(out,
			namedWriter{"X.npy", denseWriter(x)},
			namedWriter{"S.npy", func(w io.Writer) error { return d.writeSparse(w, p, f, x) }})
	}
	return out
}

// writeHoldout writes the held-out entries as CSV: row, column (the ids of
// a ratings file), value and prediction.
func (d *entryData) writeHoldout(w io.Writer, f scaledsm.Factors) error {
	head := "row,col,value,prediction\n"
	if d.rowIDs != nil {
		head = "userId,movieId,rating,prediction\n"
	}
	if _, err := io.WriteString(w, head); err != nil {
		return err
	}
	for k, v := range d.test.values {
		i, j := int(d.test.rows[k]), int(d.test.cols[k])
		ri, cj := int64(i), int64(j)
		if d.rowIDs != nil {
			ri, cj = d.rowIDs[i], d.colIDs[j]
		}
		if _, err := fmt.Fprintf(w, "%d,%d,%s,%s\n", ri, cj, csvfmt.Float(v), csvfmt.Float(predict(f.L, f.R, i, j))); err != nil {
			return err
		}
	}
	return nil
}

// writeSparse writes S = Y - X as an n1×n2 .npy array: on every observed
// entry (those fitted and those held out) the residual where it is an
// outlier by the bounds of scaledsm.Entries.OutlierBounds (TrimmedL2's,
// at the factors f), 0 where X explains it and where Y is missing: the
// foreground mask is S != 0.
func (d *entryData) writeSparse(w io.Writer, p scaledsm.Problem, f scaledsm.Factors, x *mat.Dense) error {
	op := p.Op.(*scaledsm.Entries)
	_, n1, n2 := op.Dims()
	b, err := op.OutlierBounds(p.Y, f)
	if err != nil {
		return err
	}
	s := make([]float64, n1*n2)
	set := func(i, j int, y float64) {
		if r := y - x.At(i, j); !b.Keeps(r, i, j) {
			s[i*n2+j] = r
		}
	}
	start, cols := op.Start(), op.Cols()
	for i := range n1 {
		for k := start[i]; k < start[i+1]; k++ {
			set(i, int(cols[k]), p.Y[k])
		}
	}
	for k, v := range d.test.values {
		set(int(d.test.rows[k]), int(d.test.cols[k]), v)
	}
	return dataio.WriteFloat64(w, []int{n1, n2}, s)
}

// entryOutputs are the names of every file that outputs may write.
var entryOutputs = []string{"row_ids.npy", "col_ids.npy", "holdout.csv", "X.npy", "S.npy"}

// removeOthers removes from dir every file that a solve of any kind may
// write (solveOutputs) and that this one did not (written): files of an
// earlier solve into the same directory would not belong with these.
func removeOthers(dir string, written []string) error {
	for _, name := range solveOutputs() {
		if slices.Contains(written, name) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// solveOutputs returns the name of every file a solve may write to --out.
func solveOutputs() []string {
	names := slices.Concat(factorFiles, entryOutputs, recommendOutputs)
	slices.Sort(names)
	return slices.Compact(names)
}

// namedWriter is an output file of --out and how to write it.
type namedWriter struct {
	name  string
	write func(io.Writer) error
}

// runPredict predicts entries of L Rᵀ from the factors a solve wrote.
func runPredict(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("predict", `Predicts ratings from the model that "scaledsm solve --ratings FILE --out DIR" wrote
(model.json): the pairs are (user, item) ids, and a user or an item the ratings did
not have is predicted from the biases it has (the mean at worst). Or predicts
entries of X = L Rᵀ from the factors of another solve: the pairs are (row, column)
indices, or, when DIR holds row_ids.npy and col_ids.npy (--model lowrank), ids.
Writes one prediction per pair, in the pairs' order.`, stdout)
	factors := fs.String("factors", "", "the directory of a solve's results: model.json of a recommender, or L.npy and R.npy\n(R.npy absent: X = L Lᵀ)")
	pairs := fs.String("pairs", "", "the pairs: a .npy file of integers, shape (m, 2), or a CSV file whose first two\ncolumns are the row and the column (a header line is skipped; other columns are ignored)")
	out := fs.String("out", "", "the predictions: a .npy file (float64, shape (m,)) or a .csv file (row,col,prediction)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	for _, f := range [][2]string{{"factors", *factors}, {"pairs", *pairs}, {"out", *out}} {
		if f[1] == "" {
			return usageError{"--" + f[0] + ": missing"}
		}
	}
	ext := strings.ToLower(filepath.Ext(*out))
	if ext != ".npy" && ext != ".csv" {
		return badFlag("out", *out, "want a .npy or a .csv file")
	}
	if st, err := os.Stat(*out); err == nil && st.IsDir() {
		return badFlag("out", *out, "is a directory")
	}
	if err := writableParent(*out); err != nil {
		return badFlag("out", *out, "cannot be written: "+err.Error())
	}

	if err := refuseOverwrite("out", *out, []string{*out}, input{"pairs", *pairs}, input{"factors", *factors},
		input{"factors", filepath.Join(*factors, "L.npy")}, input{"factors", filepath.Join(*factors, "R.npy")},
		input{"factors", filepath.Join(*factors, recommend.ModelFile)}); err != nil {
		return err
	}
	if recommend.IsModel(*factors) {
		return predictRatings(*factors, *pairs, *out, ext, stdout)
	}
	bad := func(format string, args ...any) error {
		return exitError{fmt.Errorf(format, args...), exitBadInput}
	}
	l, err := readFactor(*factors, "L.npy")
	if err != nil {
		return err
	}
	r := l
	if _, err := os.Stat(filepath.Join(*factors, "R.npy")); err == nil {
		if r, err = readFactor(*factors, "R.npy"); err != nil {
			return err
		}
	}
	n1, k := l.Dims()
	n2, k2 := r.Dims()
	if k != k2 {
		return bad("--factors %s: L.npy has %d columns, R.npy %d", *factors, k, k2)
	}
	var rowIDs, colIDs []int64
	if _, err := os.Stat(filepath.Join(*factors, "row_ids.npy")); err == nil {
		if rowIDs, err = readIDs(*factors, "row_ids.npy", n1); err != nil {
			return err
		}
		if colIDs, err = readIDs(*factors, "col_ids.npy", n2); err != nil {
			return err
		}
	}
	pp, err := dataio.ReadPairs(*pairs)
	if err != nil {
		return fileError(err)
	}
	where := func(k int) string {
		if pp.Lines != nil {
			return fmt.Sprintf("line %d", pp.Lines[k])
		}
		return fmt.Sprintf("pair %d", k)
	}
	index := func(v int64, ids []int64, n int, what string, k int) (int, error) {
		if ids != nil {
			i, ok := searchID(ids, v)
			if !ok {
				return 0, bad("--pairs %s: %s: %s id %d is not in the factors' %s (%s)", *pairs, where(k), what, v, what+"s", filepath.Join(*factors, what[:3]+"_ids.npy"))
			}
			return i, nil
		}
		if v < 0 || v >= int64(n) {
			return 0, bad("--pairs %s: %s: %s %d lies outside the %d %ss of the factors", *pairs, where(k), what, v, n, what)
		}
		return int(v), nil
	}
	pred := make([]float64, len(pp.Rows))
	for k := range pred {
		i, err := index(pp.Rows[k], rowIDs, n1, "row", k)
		if err != nil {
			return err
		}
		j, err := index(pp.Cols[k], colIDs, n2, "col", k)
		if err != nil {
			return err
		}
		pred[k] = predict(l, r, i, j)
	}
	write := func(w io.Writer) error { return dataio.WriteFloat64(w, []int{len(pred)}, pred) }
	if ext == ".csv" {
		write = func(w io.Writer) error {
			if _, err := io.WriteString(w, "row,col,prediction\n"); err != nil {
				return err
			}
			for k, v := range pred {
				if _, err := fmt.Fprintf(w, "%d,%d,%s\n", pp.Rows[k], pp.Cols[k], csvfmt.Float(v)); err != nil {
					return err
				}
			}
			return nil
		}
	}
	if err := atomicio.WriteFile(*out, write); err != nil {
		return outputError("out", *out, err)
	}
	fmt.Fprintf(stdout, "wrote %d predictions to %s\n", len(pred), *out)
	return nil
}

// readFactor reads a factor matrix of --factors.
func readFactor(dir, name string) (*mat.Dense, error) {
	path := filepath.Join(dir, name)
	data, shape, err := dataio.ReadFile(path)
	if err != nil {
		var fe *dataio.FileError
		if errors.As(err, &fe) {
			err = fe.Err
		}
		return nil, exitError{fmt.Errorf("--factors %s: %s: %v", dir, name, err), exitBadInput}
	}
	if len(shape) != 2 || shape[0] == 0 || shape[1] == 0 {
		return nil, exitError{fmt.Errorf("--factors %s: %s has shape %s, want a factor (n, r)", dir, name, dataio.ShapeString(shape)), exitBadInput}
	}
	return mat.NewDense(shape[0], shape[1], data), nil
}

// readIDs reads the ids of the n rows or columns of the factors.
func readIDs(dir, name string, n int) ([]int64, error) {
	ids, shape, err := dataio.ReadInts(filepath.Join(dir, name))
	if err != nil {
		var fe *dataio.FileError
		if errors.As(err, &fe) {
			err = fe.Err
		}
		return nil, exitError{fmt.Errorf("--factors %s: %s: %v", dir, name, err), exitBadInput}
	}
	if len(shape) != 1 || shape[0] != n {
		return nil, exitError{fmt.Errorf("--factors %s: %s has shape %s, want (%d,) for the factors' %d rows", dir, name, dataio.ShapeString(shape), n, n), exitBadInput}
	}
	for k := 1; k < n; k++ {
		if ids[k] <= ids[k-1] {
			return nil, exitError{fmt.Errorf("--factors %s: %s is not increasing at [%d]", dir, name, k), exitBadInput}
		}
	}
	return ids, nil
}

// searchID returns the index of id in the increasing ids.
func searchID(ids []int64, id int64) (int, bool) { return slices.BinarySearch(ids, id) }
