// Package synth generates the synthetic problems of the paper's Section 4:
// a Gaussian operator, a rank-r truth with singular values evenly spaced
// from 1 to κ, bounded uniform noise set from an SNR, and outliers on a
// Bernoulli(p_s) support.
//
// A Draw holds every random ingredient, drawn once from a seed; an Instance
// turns a Draw into observations for one setting (κ, p_s, SNR). Instances
// of one Draw share the operator, the truth's singular vectors, the outlier
// signs, magnitudes and (nested) support, and the noise, so curves that
// vary one setting differ by that setting only, as in the paper.
//
// Each ingredient comes from its own stream of a PCG generator seeded by
// the seed, and the operator from one stream per measurement, so the same
// seed gives the same bits whatever the number of cores, and changing m
// leaves the truth alone.
package synth

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/mem"
	"github.com/scaledsm/scaledsm/internal/par"
	"github.com/scaledsm/scaledsm/internal/reduce"
	"github.com/scaledsm/scaledsm/ranks"
)

// Kind is the measurement model.
type Kind int

const (
	// Sensing is matrix sensing with Gaussian matrices, X = L Rᵀ.
	Sensing Kind = iota
	// Quadratic is quadratic sampling with Gaussian vectors, X = L Lᵀ.
	Quadratic
	// Completion is matrix completion: each entry of X = L Rᵀ observed
	// with probability Config.P, independently.
	Completion
	// RobustPCA observes every entry of X = L Rᵀ.
	RobustPCA
)

// kinds names the kinds: the command line's name and the model's.
var kinds = [...]struct{ name, model string }{
	Sensing:    {"ms", "matrix sensing"},
	Quadratic:  {"qs", "quadratic sampling"},
	Completion: {"mc", "matrix completion"},
	RobustPCA:  {"rpca", "robust PCA"},
}

// Kinds returns every kind, in order.
func Kinds() []Kind {
	k := make([]Kind, len(kinds))
	for i := range k {
		k[i] = Kind(i)
	}
	return k
}

// String returns "ms" or "qs", as the command line spells the kinds.
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kinds) {
		return kinds[k].name
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Model returns the name of the measurement model, as in "matrix sensing".
func (k Kind) Model() string {
	if k >= 0 && int(k) < len(kinds) {
		return kinds[k].model
	}
	return k.String()
}

// ParseKind returns the kind named s: "ms", "qs", "mc" or "rpca".
func ParseKind(s string) (Kind, error) {
	var names []string
	for k, c := range kinds {
		if s == c.name {
			return Kind(k), nil
		}
		names = append(names, c.name)
	}
	return 0, &scaledsm.InputError{Input: "problem", Value: s, Reason: "unknown; want " + strings.Join(names, ", ")}
}

// Precision is how the sensing matrices are stored.
type Precision int

const (
	// Float64 stores the operator's data as float64, the default.
	Float64 Precision = iota
	// Float32 rounds the operator's data to float32 values: each value is
	// the float32 rounding of the Gaussian draw Float64 stores, and the
	// observations are computed from the rounded values, so recovery is as
	// exact as with Float64 and the data can be written as float32 without
	// changing the problem. Sensing matrices are then stored as float32,
	// half the memory and half the time of a pass; quadratic sampling's
	// small data stays float64. Every computation is done in float64.
	// The entry models (completion, robust PCA) instead round their
	// observations to float32 and hold them so (Instance.Y32), in half the
	// memory, as ratings and images are held: the rounding, about 6e-8 of
	// each value, is then noise that no solve removes.
	Float32
)

// String returns "f64" or "f32", as the command line spells precisions.
func (p Precision) String() string {
	switch p {
	case Float64:
		return "f64"
	case Float32:
		return "f32"
	}
	return fmt.Sprintf("Precision(%d)", int(p))
}

// ParsePrecision returns the precision named s: "f64" or "f32".
func ParsePrecision(s string) (Precision, error) {
	switch s {
	case "f64":
		return Float64, nil
	case "f32":
		return Float32, nil
	}
	return 0, &scaledsm.InputError{Input: "precision", Value: s, Reason: "unknown; want f64 or f32"}
}

// Config sets the sizes of a synthetic problem and its seed.
type Config struct {
	Kind      Kind
	N1, N2    int // shape of X*; quadratic sampling needs N2 = N1 (0 means N1)
	Rank      int
	M         int     // measurements; 0 means 4(N1+N2)·Rank, the paper's 8nr when square; for the entry models, set by New to |Ω|
	P         float64 // Completion: the probability that an entry is observed, in (0, 1]
	Seed      uint64
	Precision Precision // storage of the sensing matrices; Float64 for quadratic sampling
}

// Entries reports whether the kind observes entries (Completion,
// RobustPCA).
func (k Kind) Entries() bool { return k == Completion || k == RobustPCA }

// DefaultM returns the default number of measurements, 4(n1+n2)r, as a
// float64: exact wherever it is small enough to store, and never
// overflowing for sizes that are not.
func DefaultM(n1, n2, r int) float64 { return 4 * (float64(n1) + float64(n2)) * float64(r) }

// maxKappa is the largest condition number of a synthetic X*: 1/2^-52,
// 4.5 × 10^15, rounded down.
const maxKappa = 1e15

// maxSide is the most rows or columns of a problem: its indices are
// int32's.
const maxSide = math.MaxInt32

// Draw is one draw of the random ingredients of a synthetic problem.
type Draw struct {
	Config
	Op   scaledsm.Operator
	U, V *mat.Dense // orthonormal singular vectors of X*; V is U for quadratic sampling

	// A shard (see NewShard) holds measurements [lo, lo+len) of the
	// Gaussian models, or the entries of rows [lo, hi) of the entry models.
	red    ranks.Reducer
	lo, hi int

	outlierSign    []float64 // uniform in [-1, 1]
	outlierSupport []float64 // uniform in [0, 1): measurement i is corrupted when < p_s
	noise          []float64 // uniform in [-1, 1]
}

// Stream numbers of the ingredients; the operator's rows use streams
// opStream + i.
const (
	streamU = iota + 1
	streamV
	streamOutlierSign
	streamOutlierSupport
	streamNoise
	opStream = 1 << 32
)

// invalid returns the *scaledsm.InputError of a configuration or setting.
func invalid(input string, value any, format string, args ...any) error {
	return &scaledsm.InputError{Input: input, Value: value, Reason: fmt.Sprintf(format, args...)}
}

// Validate checks the configuration and fills in its defaults. Its errors
// are *scaledsm.InputError values naming the field: "problem", "n", "n2",
// "rank", "m", "precision".
func (c *Config) Validate() error {
	if c.Kind < 0 || int(c.Kind) >= len(kinds) {
		return invalid("problem", int(c.Kind), "unknown kind")
	}
	if c.N1 < 1 {
		return invalid("n", c.N1, "must be at least 1")
	}
	if c.N2 == 0 {
		c.N2 = c.N1
	}
	if c.N2 < 1 {
		return invalid("n2", c.N2, "must be at least 1")
	}
	if c.N1 > maxSide {
		return invalid("n", c.N1, "must be at most %d", maxSide)
	}
	if c.N2 > maxSide {
		return invalid("n2", c.N2, "must be at most %d", maxSide)
	}
	if c.Precision != Float64 && c.Precision != Float32 {
		return invalid("precision", int(c.Precision), "unknown precision")
	}
	if c.Kind == Quadratic && c.N2 != c.N1 {
		return invalid("n2", c.N2, "quadratic sampling recovers a square n×n matrix; n2 must equal n = %d", c.N1)
	}
	if c.Rank < 1 || c.Rank > min(c.N1, c.N2) {
		return invalid("rank", c.Rank, "must lie in [1, min(n1, n2)] = [1, %d]", min(c.N1, c.N2))
	}
	if c.Kind.Entries() {
		return c.validateEntries()
	}
	if c.M == 0 {
		m := DefaultM(c.N1, c.N2, c.Rank)
		if m*float64(c.width()) > math.MaxInt32*64 {
			return invalid("n", c.N1, "the default m = 4(n1+n2)r = %.3g measurements of %d values each are too many to store: give a smaller n or r, or m", m, c.width())
		}
		c.M = int(m)
	}
	if c.M < 1 {
		return invalid("m", c.M, "the number of measurements must be at least 1")
	}
	if float64(c.M)*float64(c.width()) > math.MaxInt32*64 {
		return invalid("m", c.M, "m·%d = %.3g values is too large to store", c.width(), float64(c.M)*float64(c.width()))
	}
	return nil
}

// width returns the number of values of one measurement: n1·n2 for
// sensing, n for quadratic sampling.
func (c *Config) width() int {
	if c.Kind == Sensing {
		return c.N1 * c.N2
	}
	return c.N1
}

// Bytes returns the memory that New needs for the draw of a valid
// configuration, in bytes: the operator's data (and for quadratic
// sampling its transposed copy), the per-measurement draws and, per
// measurement, the vectors of an instance and of a solve. It is an
// estimate a little above what is allocated, to check a problem against
// the memory of the machine before drawing it.
func (c *Config) Bytes() int64 {
	if c.Kind.Entries() {
		return c.entriesBytes()
	}
	m, w := int64(c.M), int64(c.width())
	data := 8 * m * w
	switch {
	case c.Kind == Quadratic:
		data *= 2 // the transposed copy
	case c.Precision == Float32:
		data /= 2
	}
	// Three draws per measurement; an instance's clean values, noise,
	// outliers and y; a solve's residuals, fits and two vectors for the
	// gap; scratch.
	return data + 8*m*(3+4+4+2)
}

// New draws the ingredients of a problem.
func New(c Config) (*Draw, error) {
	return newDraw(c, nil)
}

// newDraw draws the ingredients of a problem, or of the shard of it that
// red's rank holds.
func newDraw(c Config, red ranks.Reducer) (*Draw, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	d := &Draw{Config: c, red: red}
	if c.Kind.Entries() {
		return d, d.drawEntries()
	}
	d.lo, d.hi = 0, c.M
	if red != nil {
		d.lo, d.hi = reduce.Range(c.M, red.Rank(), red.Size())
	}
	m := d.hi - d.lo
	var err error
	switch {
	case c.Kind == Sensing && c.Precision == Float32:
		data := gaussianRows[float32](c.Seed, d.lo, m, c.N1*c.N2)
		d.Op, err = scaledsm.NewSensing(m, c.N1, c.N2, data)
	case c.Kind == Sensing:
		data := gaussianRows[float64](c.Seed, d.lo, m, c.N1*c.N2)
		d.Op, err = scaledsm.NewSensing(m, c.N1, c.N2, data)
	default:
		data := gaussianRows[float64](c.Seed, d.lo, m, c.N1)
		if c.Precision == Float32 {
			for i, v := range data {
				data[i] = float64(float32(v))
			}
		}
		d.Op, err = scaledsm.NewQuadratic(m, c.N1, data)
	}
	if err == nil && red != nil {
		d.Op, err = scaledsm.ShardOf(d.Op, c.M)
	}
	if err != nil {
		return nil, err
	}
	if d.U, err = orthonormalRademacher(c.Seed, streamU, c.N1, c.Rank); err != nil {
		return nil, err
	}
	d.V = d.U
	if c.Kind == Sensing {
		if d.V, err = orthonormalRademacher(c.Seed, streamV, c.N2, c.Rank); err != nil {
			return nil, err
		}
	}
	d.outlierSign = uniforms(c.Seed, streamOutlierSign, d.lo, d.hi, -1, 1)
	d.outlierSupport = uniforms(c.Seed, streamOutlierSupport, d.lo, d.hi, 0, 1)
	d.noise = uniforms(c.Seed, streamNoise, d.lo, d.hi, -1, 1)
	return d, nil
}

// Setting is what varies between the instances of a Draw.
type Setting struct {
	Kappa float64 // condition number κ >= 1
	PS    float64 // outlier fraction p_s in [0, 0.5)
	SNR   float64 // signal-to-noise ratio in dB; +Inf means no dense noise (the zero value is 0 dB: noise as large as the signal)
}

// Validate checks the setting.
func (s Setting) Validate() error {
	if !(s.Kappa >= 1) || math.IsInf(s.Kappa, 0) {
		return invalid("kappa", s.Kappa, "the condition number must be finite and at least 1")
	}
	if s.Kappa > maxKappa {
		return invalid("kappa", s.Kappa, "the condition number must be at most %g: beyond, float64's rounding of X*'s largest singular value is above its smallest", maxKappa)
	}
	if !(s.PS >= 0 && s.PS < 0.5) {
		return invalid("ps", s.PS, "the outlier fraction must lie in [0, 0.5)")
	}
	if math.IsNaN(s.SNR) || math.IsInf(s.SNR, -1) {
		return invalid("snr", s.SNR, "the SNR must be a number of dB (+Inf for no noise)")
	}
	return nil
}

// Instance is a synthetic problem: a truth and its observations. For the
// entry models (Completion, RobustPCA), which reach 10^8 observations,
// only Star, Y, Outliers and FStar are kept: Truth, Clean, Noise and
// Outlier are nil.
type Instance struct {
	Setting
	Op       scaledsm.Operator
	Truth    *mat.Dense       // X*
	Star     scaledsm.Factors // L* = U Σ^{1/2}, R* = V Σ^{1/2} (R* nil for quadratic sampling)
	Sigma    []float64        // singular values of X*, from κ down to 1
	Clean    []float64        // A(X*)
	Noise    []float64        // w, uniform in [-σ_w/m, σ_w/m]
	Outlier  []float64        // s, zero off the support
	Y        []float64        // A(X*) + w + s
	Y32      []float32        // the entry models at Float32: Y rounded to float32, in its stead
	Outliers int              // the measurements corrupted
	FStar    float64          // f(X*) = ||y - A(X*)||_1 = ||w + s||_1

	red ranks.Reducer // the ranks of a shard (see NewShard)
	// An entry model's outliers are drawn again when asked for (see
	// Corrupted): its seed.
	entrySeed uint64
	entryDraw bool
}

// Instance builds the observations of the draw for a setting.
func (d *Draw) Instance(s Setting) (*Instance, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	r, m, mine := d.Rank, d.M, d.hi-d.lo
	in := &Instance{Setting: s, Op: d.Op, Sigma: make([]float64, r), red: d.red}
	for k := range r {
		// linspace(κ, 1, r), as the authors' code does.
		if r == 1 {
			in.Sigma[k] = s.Kappa
		} else {
			in.Sigma[k] = s.Kappa + (1-s.Kappa)*float64(k)/float64(r-1)
		}
	}
	in.Star.L = scaleColumns(d.U, in.Sigma)
	if d.Kind != Quadratic {
		in.Star.R = scaleColumns(d.V, in.Sigma)
	}
	if d.Kind.Entries() {
		d.entriesInstance(in)
		return in, nil
	}
	in.Truth = in.Star.Product()

	in.Clean = make([]float64, mine)
	d.Op.Apply(in.Clean, in.Truth)
	var sum fsum.Sum
	var linf float64
	for _, v := range in.Clean {
		sum.Add(math.Abs(v))
		linf = max(linf, math.Abs(v))
	}
	linf = d.combine(&sum, linf)
	l1 := sum.Value()

	in.Noise = make([]float64, mine)
	if !math.IsInf(s.SNR, 1) {
		// SNR = 20 log10(||A(X*)||_1 / σ_w); w_i uniform in [-σ_w/m, σ_w/m].
		sigmaW := l1 / math.Pow(10, s.SNR/20)
		for i, u := range d.noise {
			in.Noise[i] = sigmaW / float64(m) * u
		}
	}
	in.Outlier = make([]float64, mine)
	for i, u := range d.outlierSupport {
		if u < s.PS {
			in.Outlier[i] = 10 * linf * d.outlierSign[i]
			in.Outliers++
		}
	}
	// y = (A(X*) + s) + w and f(X*) = ||y - A(X*)||_1, in the authors'
	// order of operations.
	in.Y = make([]float64, mine)
	var fStar fsum.Sum // f(X*) = ||A(X*) - y||_1, as scaledsm.L1.Value sums it
	for i := range in.Y {
		in.Y[i] = in.Clean[i] + in.Outlier[i] + in.Noise[i]
		fStar.Add(math.Abs(in.Clean[i] - in.Y[i]))
	}
	in.Outliers = d.count(in.Outliers)
	d.combine(&fStar, 0)
	in.FStar = fStar.Value()
	return in, nil
}

// Problem returns the instance as a problem for scaledsm.Solve, truth
// included.
func (in *Instance) Problem() scaledsm.Problem {
	return scaledsm.Problem{Op: in.Op, Y: in.Y, Y32: in.Y32, Rank: len(in.Sigma), Truth: in.Star, Reducer: in.red}
}

// Corrupted returns the outlier mask: true where s_i != 0. For the entry
// models, which keep no Outlier, it draws the outliers' support again
// from their streams.
func (in *Instance) Corrupted() []bool {
	if in.entryDraw {
		return in.entryCorrupted()
	}
	mask := make([]bool, len(in.Outlier))
	for i, v := range in.Outlier {
		mask[i] = v != 0
	}
	return mask
}

// gaussianRows returns m rows of w standard normal values, row i drawn from
// its own stream, generated on all cores straight into the one slice the
// operator keeps (float32 values are the roundings of the float64 draws),
// allocated on huge pages where the system offers them (see package mem).
func gaussianRows[T float32 | float64](seed uint64, lo, m, w int) []T {
	data := mem.Make[T](m * w)
	par.Do(runtime.GOMAXPROCS(0), m, func(i int) {
		rng := rand.New(rand.NewPCG(seed, opStream+uint64(lo+i)))
		row := data[i*w : (i+1)*w]
		for j := range row {
			row[j] = T(rng.NormFloat64())
		}
	})
	return data
}

// orthonormalRademacher returns the left singular vectors of an n×r matrix
// of independent ±1 entries: an orthonormal basis of its column space.
func orthonormalRademacher(seed, stream uint64, n, r int) (*mat.Dense, error) {
	return orthonormal(seed, stream, n, r, false)
}

// orthonormalGaussian returns an orthonormal basis of the column space of
// an n×r matrix of independent standard normal entries: a uniformly random
// r-dimensional subspace, the usual truth of matrix completion, whose
// entries, unlike a Rademacher basis's at a small r, take no repeated
// values (nor exact zeros of X*).
func orthonormalGaussian(seed, stream uint64, n, r int) (*mat.Dense, error) {
	return orthonormal(seed, stream, n, r, true)
}

func orthonormal(seed, stream uint64, n, r int, gaussian bool) (*mat.Dense, error) {
	rng := rand.New(rand.NewPCG(seed, stream))
	m := mat.NewDense(n, r, nil)
	for i := range n {
		for j := range r {
			if gaussian {
				m.Set(i, j, rng.NormFloat64())
				continue
			}
			if rng.Uint64()&1 == 0 {
				m.Set(i, j, 1)
			} else {
				m.Set(i, j, -1)
			}
		}
	}
	var svd mat.SVD
	if !svd.Factorize(m, mat.SVDThin) {
		return nil, errors.New("synth: SVD of a random basis did not converge")
	}
	var u mat.Dense
	svd.UTo(&u)
	return mat.DenseCopyOf(u.Slice(0, n, 0, r)), nil
}

// uniforms returns the draws [from, to) of the stream, uniform in
// [lo, hi): those before from are drawn and dropped.
func uniforms(seed, stream uint64, from, to int, lo, hi float64) []float64 {
	rng := rand.New(rand.NewPCG(seed, stream))
	for range from {
		rng.Float64()
	}
	v := make([]float64, to-from)
	for i := range v {
		v[i] = lo + (hi-lo)*rng.Float64()
	}
	return v
}

// scaleColumns returns u·diag(sqrt(sigma)).
func scaleColumns(u *mat.Dense, sigma []float64) *mat.Dense {
	n, r := u.Dims()
	out := mat.NewDense(n, r, nil)
	for j := range r {
		c := math.Sqrt(sigma[j])
		for i := range n {
			out.Set(i, j, u.At(i, j)*c)
		}
	}
	return out
}
