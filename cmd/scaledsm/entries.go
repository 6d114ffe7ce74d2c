package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/completion"
	"github.com/scaledsm/scaledsm/dataio"
	"github.com/scaledsm/scaledsm/internal/mem"
	"github.com/scaledsm/scaledsm/predict"
	"github.com/scaledsm/scaledsm/recommend"
	"github.com/scaledsm/scaledsm/report"
	"github.com/scaledsm/scaledsm/synth"
)

// entryDefaults returns the method, loss and step that a solve of the
// entry models (matrix completion, robust PCA) uses when --method, --loss
// and --step are not given: the library's DefaultSettings for Entries.
func entryDefaults() scaledsm.Settings {
	return completion.DefaultSettings().Settings
}

// entryData is what a problem of the entry models carries beside the
// operator: its summary, the entries held out, the ids of a ratings file
// and the shape of a dense (--masked) input.
type entryData struct {
	json           report.Entries
	test           completion.HeldOut
	rowIDs, colIDs []int64 // --ratings: the id of each row and column
	masked         bool    // --masked: X.npy and S.npy are written
	// corrupted, for a synthetic problem, draws the outliers' support.
	corrupted func() []bool
}

// supportLimit is the most entries whose outlier support a solve
// estimates: two m-sized buffers at 16 bytes an entry, 256 MB.
const supportLimit = 1 << 24

// outlierSupport counts the sparse part's support at f (see
// completion.Entries.SparsePart) and scores it against the synthetic
// problem's outliers: for a synthetic problem, whose outliers are known,
// and a masked matrix, whose S.npy is that support; not for entries and
// ratings from files, where its two m-sized buffers would raise the peak
// memory of the solve for a count.
func (d *entryData) outlierSupport(p scaledsm.Problem, f scaledsm.Factors) error {
	op, ok := p.Op.(*completion.Entries)
	if !ok || len(p.Y)+len(p.Y32) > supportLimit || (d.corrupted == nil && !d.masked) {
		return nil
	}
	y := p.Y
	if p.Y32 != nil {
		y = widen(p.Y32)
	}
	s, err := op.SparsePart(y, f)
	if err != nil {
		return err
	}
	var corrupted []bool
	if d.corrupted != nil {
		corrupted = d.corrupted()
	}
	d.json.SetSupport(s, corrupted)
	return nil
}

// newEntryData counts the rows and columns of op with no entry.
func newEntryData(op *completion.Entries) *entryData {
	return &entryData{json: *report.NewEntries(op)}
}

// enoughEntries refuses fewer entries than the (n1+n2)·r unknowns of the
// factors (see completion.Entries.Determined): what names the input that set
// their number, as "--p 0.01".
func enoughEntries(op *completion.Entries, r int, what string) error {
	if err := op.Determined(r); err != nil {
		return exitError{fmt.Errorf("%s: %v", what, err), exitBadInput}
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
		return completion.ValidationBytes(m, n1)
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
	ed := &entryData{}
	files := &report.Inputs{TruthLeft: s.flags.truthLeft, TruthRight: s.flags.truthRight}
	op, y, y32, err := s.read(ed, files)
	if err != nil {
		return nil, err
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
		if y32 != nil { // the split takes float64 values
			y, y32 = widen(y32), nil
		}
		if op, y, ed.test, err = op.HoldOut(y, s.holdout, s.seed, holdoutStream); err != nil {
			return nil, entriesError(err, "--holdout")
		}
		h, nt := s.holdout, len(ed.test.Y)
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
	p := scaledsm.Problem{Op: op, Y: y, Y32: y32, Rank: s.rank}
	if s.flags.truthLeft != "" {
		truth, err := dataio.EntryFiles{N1: n1, N2: n2, TruthLeft: s.flags.truthLeft, TruthRight: s.flags.truthRight}.ReadTruth(s.rank)
		if err != nil {
			return nil, fileError(err)
		}
		p.Truth = truth
	}
	mem.TuneGCFor(op)
	m, _, _ = op.Dims()
	return &loaded{
		problem: p, kind: kind, ps: s.ps, files: files, entries: ed,
		shape:   report.Shape{Problem: kind.String(), N1: n1, N2: n2, Rank: s.rank, M: m},
		seconds: time.Since(t0).Seconds(),
	}, nil
}

// read reads the entries of the files and their observations, noting in
// ed and files what they were: float64 (y), or float32 (y32) as a float32
// --values file holds them, the solve the same in less memory.
func (s *fromEntries) read(ed *entryData, files *report.Inputs) (op *completion.Entries, y []float64, y32 []float32, err error) {
	switch s.fileFlag {
	case "rows":
		files.Operator, files.Cols, files.Y = s.flags.rows, s.flags.cols, s.flags.values
		c, err := dataio.LoadEntriesCSR(dataio.EntryFiles{Rows: s.flags.rows, Cols: s.flags.cols, Values: s.flags.values, N1: s.n1, N2: s.n2})
		if ie := (*scaledsm.InputError)(nil); errors.As(err, &ie) {
			return nil, nil, nil, entriesError(err, "--rows "+s.flags.rows+", --cols "+s.flags.cols)
		} else if err != nil {
			return nil, nil, nil, fileError(err)
		}
		op, err := completion.NewEntriesCSR(s.n1, s.n2, c.Start, c.Cols)
		return op, c.Y, c.Y32, err
	case "ratings":
		files.Operator = s.flags.ratings
		rt, err := dataio.ReadRatingsLayout(s.flags.ratings, s.layout)
		if err != nil {
			return nil, nil, nil, fileError(err)
		}
		ed.rowIDs, ed.colIDs = rt.RowIDs, rt.ColIDs
		op, y, err := completion.NewEntries(len(rt.RowIDs), len(rt.ColIDs), rt.Rows, rt.Cols, rt.Values)
		if err != nil {
			return nil, nil, nil, ratingsDuplicate(s.flags.ratings, s.layout, rt, err)
		}
		return op, y, nil, nil
	}
	files.Operator = s.flags.masked
	x, err := dataio.ReadMasked(s.flags.masked)
	if err != nil {
		return nil, nil, nil, fileError(err)
	}
	if len(x.Cols) == 0 {
		return nil, nil, nil, exitError{fmt.Errorf("--masked %s: every entry is NaN", s.flags.masked), exitBadInput}
	}
	ed.masked = true
	ed.json.Missing = &x.Missing
	op, err = completion.NewEntriesCSR(x.N1, x.N2, x.Start, x.Cols)
	if err != nil {
		return nil, nil, nil, entriesError(err, "--masked "+s.flags.masked)
	}
	return op, x.Values, nil, nil
}

// widen returns float32 observations as float64, for the paths that take
// those alone (--holdout's split, the outliers' support).
func widen(y32 []float32) []float64 {
	y := make([]float64, len(y32))
	for k, v := range y32 {
		y[k] = float64(v)
	}
	return y
}

// entriesError words an error of completion.NewEntries about the files what.
func entriesError(err error, what string) error {
	var ie *scaledsm.InputError
	if errors.As(err, &ie) {
		return exitError{fmt.Errorf("%s: %s", what, ie.Reason), exitBadInput}
	}
	return err
}

// ratingsDuplicate words the error of completion.NewEntries on the entries
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
		out = append(out, namedWriter{"holdout.csv", func(w io.Writer) error { return predict.WriteHeldOut(w, f, d.test, d.rowIDs, d.colIDs) }})
	}
	if d.masked {
		out = append(out,
			namedWriter{"X.npy", func(w io.Writer) error { return dataio.WriteDense(w, f.Product()) }},
			namedWriter{"S.npy", func(w io.Writer) error {
				sp, err := p.Op.(*completion.Entries).SparseMatrix(p.Y, f, d.test)
				if err != nil {
					return err
				}
				return dataio.WriteDense(w, sp)
			}})
	}
	return out
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

// runPredict predicts entries from the fit a solve saved (package
// predict): a recommender's ratings, or entries of L Rᵀ.
func runPredict(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("predict", `Predicts ratings from the model that "scaledsm solve --ratings FILE --out DIR" wrote
(model.json): the pairs are (user, item) ids, and a user or an item the ratings did
not have is predicted from the biases it has (the mean at worst). Or predicts
entries of X = L Rᵀ from the factors of another solve: the pairs are (row, column)
indices, or, when DIR holds row_ids.npy and col_ids.npy (--model lowrank), ids.
Writes one prediction per pair, in the pairs' order.`, stdout)
	factors := fs.String("factors", "", "the directory of a solve's results: model.json of a recommender, or L.npy and R.npy\n(R.npy absent: X = L Lᵀ)")
	pairs := fs.String("pairs", "", "the pairs: a .npy file of integers, shape (m, 2), or a text file whose first two\ncolumns are the row (user) and the column (item), separated as a ratings file's; a header line naming\nthe user and item columns is read by its names; other columns are ignored")
	out := fs.String("out", "", "the predictions: a .npy file (float64, shape (m,)) or a .csv file (row,col,prediction)")
	var fold foldFlags
	fold.register(fs, "first (a recommender's model)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkPredictFlags(*factors, *pairs, *out, fold.inputs()...); err != nil {
		return err
	}
	if err := fold.check(); err != nil {
		return err
	}
	model, err := predict.Load(*factors)
	if err != nil {
		return exitError{fmt.Errorf("--factors %v", err), exitBadInput}
	}
	var folded *recommend.FoldReport
	if fold.given() {
		rec, ok := model.(predict.Recommender)
		if !ok {
			return badFlag("factors", *factors, "holds low-rank factors, not a recommender: new ratings fold into a recommender's model")
		}
		m, rep, err := fold.apply(rec.Model, *factors)
		if err != nil {
			return err
		}
		model, folded = predict.Recommender{Model: m}, rep
	}
	pp, err := dataio.ReadPairs(*pairs)
	if err != nil {
		return fileError(err)
	}
	p, err := model.Predict(pp.Rows, pp.Cols)
	if pe := (*predict.PairError)(nil); errors.As(err, &pe) {
		where := fmt.Sprintf("pair %d", pe.Pair)
		if pp.Lines != nil {
			where = fmt.Sprintf("line %d", pp.Lines[pe.Pair])
		}
		return exitError{fmt.Errorf("--pairs %s: %s: %v", *pairs, where, err), exitBadInput}
	}
	if err := predict.Write(*out, pp.Rows, pp.Cols, p); err != nil {
		return outputError("out", *out, err)
	}
	if folded != nil {
		fmt.Fprintf(stdout, "%s\n", describe(folded))
	}
	if _, ok := model.(predict.Recommender); ok {
		fmt.Fprintf(stdout, "wrote %d predictions to %s (%d pairs with a user or an item the ratings did not have, predicted from the biases)\n", len(p.Values), *out, p.Unseen)
	} else {
		fmt.Fprintf(stdout, "wrote %d predictions to %s\n", len(p.Values), *out)
	}
	return nil
}

// checkPredictFlags checks predict's flags before anything is read: each
// given, an output of a known kind that can be written and that overwrites
// no input.
func checkPredictFlags(factors, pairs, out string, more ...input) error {
	for _, f := range [][2]string{{"factors", factors}, {"pairs", pairs}, {"out", out}} {
		if f[1] == "" {
			return usageError{"--" + f[0] + ": missing"}
		}
	}
	if ext := strings.ToLower(filepath.Ext(out)); ext != ".npy" && ext != ".csv" {
		return badFlag("out", out, "want a .npy or a .csv file")
	}
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		return badFlag("out", out, "is a directory")
	}
	if err := writableParent(out); err != nil {
		return badFlag("out", out, "cannot be written: "+err.Error())
	}
	return refuseOverwrite("out", out, []string{out}, append([]input{{"pairs", pairs}, {"factors", factors},
		{"factors", filepath.Join(factors, "L.npy")}, {"factors", filepath.Join(factors, "R.npy")},
		{"factors", filepath.Join(factors, recommend.ModelFile)}}, more...)...)
}
