package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"time"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/completion"
	"github.com/scaledsm/scaledsm/dataio"
	"github.com/scaledsm/scaledsm/internal/mem"
	"github.com/scaledsm/scaledsm/internal/reduce"
	"github.com/scaledsm/scaledsm/report"
	"github.com/scaledsm/scaledsm/synth"
)

// A source is where a command's problem comes from: a synthetic draw of
// the paper's recipe, or NumPy files. Its flags are checked when it is
// made; bytes estimates the memory the problem needs before anything is
// allocated (with validating, also that of choosing the rank or the
// penalty by validation: see completion.ValidationBytes), and load reads or
// draws it.
type source interface {
	bytes(validating bool) (int64, error)
	// fits says what would fit in avail bytes, for the error that refuses
	// a problem too big.
	fits(avail int64) string
	load() (*loaded, error)
	// oracle reports whether the source knows f(X*), as the paper's
	// experiments do: their Polyak steps are then the default.
	oracle() bool
	// truth reports whether the problem comes with X*.
	truth() bool
	// inputs maps the library's input names to the flags that set them.
	inputs() map[string]string
	// entries reports whether the problem is one of the entry models
	// (matrix completion, robust PCA), whose defaults entryDefaults sets.
	entries() bool
}

// loaded is a problem ready to solve and what is known about it.
type loaded struct {
	problem scaledsm.Problem
	kind    synth.Kind
	ps      float64 // the outlier fraction, when known (NaN otherwise)
	shape   report.Shape
	draw    *report.Draw // a synthetic problem's draw
	files   *report.Inputs
	entries *entryData    // the entry models' extras; nil for the others
	seconds float64       // reading or drawing
	setup   time.Duration // since the command began, to the end of the initialization
}

// synthFlags describe a synthetic problem of the paper's recipe.
type synthFlags struct {
	problem, precision string
	n, n2, r, m        int
	kappa, ps, snr, p  float64
	seed               uint64
	fs                 *flag.FlagSet
}

// Flags of the synthetic problem, which also name the inputs of the
// recipe's errors (see inputFlag).
var synthInputs = map[string]string{
	"problem": "problem", "n": "n", "n2": "n2", "rank": "r", "m": "m",
	"kappa": "kappa", "ps": "ps", "snr": "snr", "precision": "precision", "p": "p",
}

func (p *synthFlags) register(fs *flag.FlagSet) {
	p.fs = fs
	fs.StringVar(&p.problem, "problem", "qs", "measurement model: ms (matrix sensing, X = L Rᵀ), qs (quadratic sampling, X = L Lᵀ),\nmc (matrix completion: entries of X = L Rᵀ, each seen with probability --p) or rpca (robust PCA: every entry)")
	fs.IntVar(&p.n, "n", 100, "rows n1 of X* (and columns, unless --n2 is given)")
	fs.IntVar(&p.n2, "n2", 0, "columns n2 of X* (default n; not for quadratic sampling, whose X* is n×n)")
	fs.IntVar(&p.r, "r", 5, "rank r of X*")
	fs.IntVar(&p.m, "m", 0, "number of measurements (default 4(n1+n2)r, the paper's 8nr when square; not for mc, rpca)")
	fs.Float64Var(&p.p, "p", 0, "mc: the probability that an entry is observed, in (0, 1] (default 4(n1+n2)r/(n1·n2), as many\nentries in expectation as the paper's measurements, at most 1)")
	fs.Float64Var(&p.kappa, "kappa", 10, "condition number of X*: singular values evenly spaced from kappa to 1")
	fs.Float64Var(&p.ps, "ps", 0, "fraction p_s of measurements corrupted by outliers, in [0, 0.5)")
	fs.Float64Var(&p.snr, "snr", math.Inf(1), "signal-to-noise ratio in dB of the dense bounded noise (default none)")
	fs.Uint64Var(&p.seed, "seed", 1, "seed of every random draw")
}

// synthetic is the source of a synthetic problem.
type synthetic struct {
	cfg     synth.Config
	setting synth.Setting
}

// config returns the synthetic source of the flags, checked by the recipe.
func (p *synthFlags) config() (*synthetic, error) {
	kind, err := synth.ParseKind(p.problem)
	if err != nil {
		return nil, inputFlag(err, synthInputs)
	}
	c := synth.Config{Kind: kind, N1: p.n, Rank: p.r, M: p.m, Seed: p.seed, P: p.p}
	set := setFlags(p.fs)
	if set["n2"] {
		if p.n2 < 1 {
			return nil, badFlag("n2", p.n2, "must be at least 1")
		}
		c.N2 = p.n2
	}
	if set["m"] && p.m < 1 {
		return nil, badFlag("m", p.m, "must be at least 1")
	}
	switch {
	case kind.Entries() && set["m"]:
		return nil, badFlag("m", p.m, fmt.Sprintf("the entries of --problem %s are drawn, not counted: set --p", kind))
	case !kind.Entries() && set["p"]:
		return nil, badFlag("p", p.p, fmt.Sprintf("applies to --problem mc (and rpca, where it is 1), not %s; set --m", kind))
	case kind == synth.Completion && !set["p"]:
		n2 := p.n
		if set["n2"] {
			n2 = p.n2
		}
		c.P = min(1, synth.DefaultM(p.n, n2, p.r)/(float64(p.n)*float64(n2)))
	case set["p"]:
		c.P = p.p
	}
	if p.precision != "" {
		if c.Precision, err = synth.ParsePrecision(p.precision); err != nil {
			return nil, inputFlag(err, synthInputs)
		}
	}
	if err := c.Validate(); err != nil {
		return nil, inputFlag(err, synthInputs)
	}
	s := synth.Setting{Kappa: p.kappa, PS: p.ps, SNR: p.snr}
	if err := s.Validate(); err != nil {
		return nil, inputFlag(err, synthInputs)
	}
	return &synthetic{cfg: c, setting: s}, nil
}

func (s *synthetic) bytes(validating bool) (int64, error) {
	c := s.cfg
	if validating && c.Kind.Entries() {
		m := int(float64(c.N1) * float64(c.N2) * c.P) // expected, as Bytes counts
		return c.Bytes() + completion.ValidationBytes(m, c.N1), nil
	}
	return c.Bytes(), nil
}

func (s *synthetic) fits(avail int64) string {
	c := s.cfg
	if c.Kind.Entries() {
		frac := float64(avail) / float64(c.Bytes()) // of the entries that fit
		if c.Kind == synth.RobustPCA {
			return fmt.Sprintf("it fits with at most %.3g%% of the entries, as --problem mc --p %.3g", 100*frac, frac)
		}
		return fmt.Sprintf("it fits with at most --p %.3g", c.P*frac)
	}
	perM := float64(c.Bytes()) / float64(c.M)
	hint := fmt.Sprintf("it fits with at most --m %d", int(float64(avail)/perM))
	if c.Kind == synth.Sensing && c.Precision == synth.Float64 {
		c.Precision = synth.Float32
		if c.Bytes() <= avail {
			return fmt.Sprintf("with --precision f32 it needs %s and fits", mem.Format(c.Bytes()))
		}
		hint += fmt.Sprintf(", or --m %d with --precision f32", int(float64(avail)/(float64(c.Bytes())/float64(c.M))))
	}
	return hint
}

func (s *synthetic) oracle() bool              { return true }
func (s *synthetic) inputs() map[string]string { return synthInputs }
func (s *synthetic) truth() bool               { return true }
func (s *synthetic) entries() bool             { return s.cfg.Kind.Entries() }

func (s *synthetic) load() (*loaded, error) {
	t0 := time.Now()
	var draw *synth.Draw
	var err error
	if world != nil {
		draw, err = synth.NewShard(s.cfg, world)
	} else {
		draw, err = synth.New(s.cfg)
	}
	if err != nil {
		return nil, inputFlag(err, synthInputs)
	}
	mem.TuneGCFor(draw.Op)
	in, err := draw.Instance(s.setting)
	if err != nil {
		return nil, inputFlag(err, synthInputs)
	}
	c := draw.Config // with M, and for the entry models |Ω|
	d := report.NewDraw(c, s.setting, in)
	ld := &loaded{
		problem: in.Problem(), kind: c.Kind, ps: s.setting.PS, draw: &d,
		shape:   report.Shape{Problem: c.Kind.String(), N1: c.N1, N2: c.N2, Rank: c.Rank, M: c.M},
		seconds: time.Since(t0).Seconds(),
	}
	if op, ok := draw.Op.(*completion.Entries); ok && world == nil {
		// (On ranks, a shard's empty rows are other ranks' rows.)
		ld.entries = newEntryData(op)
		ld.entries.corrupted = in.Corrupted
		if err := enoughEntries(op, c.Rank, fmt.Sprintf("--p %g", c.P)); err != nil {
			return nil, err
		}
	}
	return ld, nil
}

// fileFlags name the files of a problem read from disk.
type fileFlags struct {
	sensing, quadratic, y, truth string
	n1                           int
	rank                         rankValue
	fs                           *flag.FlagSet
}

// Flags of the problem read from files, which also name the inputs of the
// library's errors.
var fileInputs = map[string]string{"rank": "rank", "y": "y", "truth": "truth"}

func (f *fileFlags) register(fs *flag.FlagSet) {
	f.fs = fs
	fs.StringVar(&f.sensing, "sensing", "", "solve the matrix sensing problem (X = L Rᵀ) whose matrices A_i are in this .npy file:\nshape (m, n1, n2), or (m, n1·n2) with --n1 and --n2")
	fs.StringVar(&f.quadratic, "quadratic", "", "solve the quadratic sampling problem (PSD X = L Lᵀ) whose vectors a_i are in this .npy file: shape (m, n)")
	fs.StringVar(&f.y, "y", "", "the observations y: a .npy file of shape (m,)")
	fs.StringVar(&f.truth, "truth", "", "optional: X*, a .npy file of shape (n1, n2), to report the relative error and stop at --tol")
	fs.IntVar(&f.n1, "n1", 0, "rows n1 of each matrix of a two-dimensional --sensing file (with --n2)")
	fs.Var(&f.rank, "rank", rankUsage)
}

// Flags that belong to one kind of problem only.
var (
	syntheticOnly = []string{"problem", "n", "r", "m", "p", "kappa", "snr", "seed", "precision"}
	filesOnly     = []string{"sensing", "quadratic", "y", "truth", "n1"}
)

// given reports whether the problem comes from files.
func (f *fileFlags) given() bool { return f.sensing != "" || f.quadratic != "" }

// rejectInSynthetic returns the error for a file flag given without files.
func (f *fileFlags) rejectInSynthetic() error {
	set := setFlags(f.fs)
	for _, name := range filesOnly {
		if !set[name] {
			continue
		}
		return badFlag(name, flagValue(f.fs, name), "applies to a problem read from files: give --sensing or --quadratic")
	}
	return nil
}

// fromFiles is the source of a problem read from files.
type fromFiles struct {
	files dataio.Files
	rank  rankValue
	ps    float64 // the fraction assumed corrupted (--ps), NaN when not given
}

// config checks the flags of a solve from files, before any file is read;
// ps and n2 are the shared flags --ps and --n2.
func (f *fileFlags) config(ps float64, n2 int) (*fromFiles, error) {
	set := setFlags(f.fs)
	if f.sensing != "" && f.quadratic != "" {
		return nil, badFlag("quadratic", f.quadratic, "give either --sensing or --quadratic, not both")
	}
	for _, name := range syntheticOnly {
		if !set[name] {
			continue
		}
		reason := "sets up a synthetic problem; with --sensing or --quadratic the problem comes from the files"
		switch name {
		case "r":
			reason = "is the rank of a synthetic problem; with files, give --rank"
		case "n":
			reason = "is the size of a synthetic problem; the files give it (a two-dimensional --sensing file needs --n1 and --n2)"
		case "precision":
			reason = "sets up a synthetic problem; a float32 --sensing file is kept as float32"
		}
		return nil, badFlag(name, flagValue(f.fs, name), reason)
	}
	op := "--sensing"
	if f.quadratic != "" {
		op = "--quadratic"
	}
	switch {
	case f.y == "":
		return nil, usageError{"--y: missing: give the observations of " + op + " " + f.sensing + f.quadratic + " (a .npy file of shape (m,))"}
	case !set["rank"]:
		return nil, usageError{"--rank: missing: give the rank r of the matrix to recover"}
	case set["ps"] && !(ps >= 0 && ps < 0.5):
		return nil, badFlag("ps", ps, "the fraction of measurements assumed corrupted must lie in [0, 0.5)")
	}
	src := &fromFiles{files: dataio.Files{Y: f.y, Truth: f.truth}, rank: f.rank, ps: math.NaN()}
	if set["ps"] {
		src.ps = ps
	}
	if f.sensing != "" {
		src.files.Sensing = f.sensing
		switch {
		case set["n1"] && f.n1 < 1:
			return nil, badFlag("n1", f.n1, "must be at least 1")
		case set["n2"] && n2 < 1:
			return nil, badFlag("n2", n2, "must be at least 1")
		case set["n1"] && !set["n2"]:
			return nil, badFlag("n1", f.n1, "give --n2 too: the shape n1×n2 of each matrix")
		case set["n2"] && !set["n1"]:
			return nil, badFlag("n2", n2, "give --n1 too: the shape n1×n2 of each matrix")
		}
		if set["n1"] {
			src.files.N1, src.files.N2 = f.n1, n2
		}
	} else {
		src.files.Quadratic = f.quadratic
		for _, name := range []string{"n1", "n2"} {
			if set[name] {
				return nil, badFlag(name, flagValue(f.fs, name), "applies to --sensing files; the shape (m, n) of --quadratic gives n")
			}
		}
	}
	return src, nil
}

func (s *fromFiles) bytes(bool) (int64, error) { // no entries: nothing validated
	n, m, err := s.files.Size()
	if err != nil {
		return 0, fileError(err)
	}
	// The solve's vectors of one value per measurement, next to the data.
	return n + solveVectors*8*int64(m), nil
}

// solveVectors is the number of vectors of one value per measurement that
// a solve allocates beside the data (residuals, fits, the truth's, scratch),
// rounded up.
const solveVectors = 8

func (s *fromFiles) fits(avail int64) string {
	return "the files' data does not fit; a machine with more memory is needed"
}

func (s *fromFiles) oracle() bool              { return false }
func (s *fromFiles) inputs() map[string]string { return fileInputs }
func (s *fromFiles) truth() bool               { return s.files.Truth != "" }
func (s *fromFiles) entries() bool             { return false }

func (s *fromFiles) load() (*loaded, error) {
	t0 := time.Now()
	var p scaledsm.Problem
	var err error
	if world != nil {
		p, err = dataio.LoadShard(s.files, s.rank.loadRank(), world) // each rank reads its rows
	} else {
		p, err = dataio.Load(s.files, s.rank.loadRank())
	}
	if err != nil {
		if err := inputFlag(err, fileInputs); err != nil {
			return nil, fileError(err)
		}
	}
	mem.TuneGCFor(p.Op)
	_, n1, n2 := p.Op.Dims()
	m := len(p.Y)
	if world != nil {
		m = reduce.Count(world, m)
	}
	kind := synth.Sensing
	if p.Op.Symmetric() {
		kind = synth.Quadratic
	}
	f := &report.Inputs{Operator: s.files.Sensing + s.files.Quadratic, Y: s.files.Y}
	if s.files.Truth != "" {
		f.Truth = &s.files.Truth
	}
	return &loaded{
		problem: p, kind: kind, ps: s.ps, files: f,
		shape:   report.Shape{Problem: kind.String(), N1: n1, N2: n2, Rank: s.rank.loadRank(), M: m},
		seconds: time.Since(t0).Seconds(),
	}, nil
}

// fileError turns an error of package dataio into one line naming the flag
// and the file at fault.
func fileError(err error) error {
	var fe *dataio.FileError
	if !errors.As(err, &fe) {
		return err
	}
	msg := fe.Err.Error()
	if errors.Is(fe.Err, dataio.ErrMatrixShape) {
		msg += " (give the shape with --n1 and --n2)"
	}
	return exitError{fmt.Errorf("--%s %s: %s", fe.Input, fe.Path, msg), exitBadInput}
}

// checkMemory refuses a problem that needs more memory than the machine
// offers, with one line giving both and what would fit; validating counts
// the memory of choosing the rank or the penalty by validation.
func checkMemory(src source, validating bool) error {
	need, err := src.bytes(validating)
	if err != nil {
		return err
	}
	need /= int64(size()) // each rank holds its shard
	var tb *mem.TooBig
	if errors.As(mem.Check(need), &tb) {
		return exitError{fmt.Errorf("the problem %v; %s", tb, src.fits(tb.Available)), exitBadInput}
	}
	return nil
}
