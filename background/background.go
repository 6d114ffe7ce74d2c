// Package background separates a video's moving foreground from its
// background, frame by frame, into binary masks, as CDnet 2014 scores them.
//
// A Subtractor learns from the first Settings.Learn frames: ScaledSM (l1
// loss, rank Settings.Rank) on a sample of the pixels × frames matrix gives
// the frames' factors, least absolute deviations each pixel's row, and 1.4826
// times the median absolute residual its scale. Each later frame is fitted to
// that basis by a Huber-weighted regression; its pixels beyond the Settings'
// thresholds, majority-filtered and with holes filled, make the mask; and the
// basis and scales follow the background by a rank-one step (as GRASTA and
// GROUSE track a subspace), so memory does not grow with the video's length.
// docs/completion.md says how the defaults were chosen, and what they score.
package background

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/completion"
	"github.com/scaledsm/scaledsm/internal/order"
	"github.com/scaledsm/scaledsm/internal/par"
)

// Defaults of Settings.
const (
	DefaultLearn       = 100
	DefaultRank        = 2
	DefaultThreshold   = 3
	DefaultMinContrast = 0.06
	DefaultMaxContrast = 0.12
	DefaultMedian      = 5
	DefaultRate        = 0.02
	DefaultAbsorb      = 200
)

// minScale is the least scale of a pixel, of the gray range [0, 1]: a
// pixel that did not change in the learning frames (or saturated) gets
// the scale of quantization and compression noise.
const minScale = 0.01

// Settings say how a Subtractor learns and decides; the zero value is the
// default.
type Settings struct {
	Learn       int     `json:"learn"`        // frames learned from before the first mask (DefaultLearn)
	Rank        int     `json:"rank"`         // the background's rank (DefaultRank)
	Threshold   float64 `json:"threshold"`    // a foreground residual is beyond this many of its pixel's scales (DefaultThreshold)
	MinContrast float64 `json:"min_contrast"` // and beyond this fraction of the gray range (DefaultMinContrast; NoMinContrast for none)
	MaxContrast float64 `json:"max_contrast"` // a residual beyond this fraction is foreground whatever its pixel's scale (DefaultMaxContrast; 1 for none)
	Median      int     `json:"median"`       // the majority filter's window, odd; 1 for none (DefaultMedian)
	Rate        float64 `json:"rate"`         // how fast the basis and the scales follow the background, in (0, 1) (DefaultRate)
	KeepHoles   bool    `json:"keep_holes"`   // leave the background enclosed by foreground as it is (by default it is filled)
	Absorb      int     `json:"absorb"`       // a pixel foreground this many frames in a row is updated as background (DefaultAbsorb; -1 never)
	Color       bool    `json:"color"`        // frames of 3 channels a pixel (R, G, B interleaved), each a row of the model; a pixel is a hit when a channel is
	Workers     int     `json:"workers"`      // goroutines; 0 for GOMAXPROCS
}

// NoMinContrast as Settings.MinContrast is no contrast floor, a floor of
// 0: the zero value is the default.
const NoMinContrast = -1

// Resolved returns the settings with the defaults filled in, and an error
// for one out of range.
func (s Settings) Resolved() (Settings, error) {
	s.Learn = cmp.Or(s.Learn, DefaultLearn)
	s.Rank = cmp.Or(s.Rank, DefaultRank)
	s.Threshold = cmp.Or(s.Threshold, DefaultThreshold)
	s.MinContrast = cmp.Or(s.MinContrast, DefaultMinContrast)
	if s.MinContrast == NoMinContrast {
		s.MinContrast = 0
	}
	s.MaxContrast = cmp.Or(s.MaxContrast, DefaultMaxContrast)
	s.Median = cmp.Or(s.Median, DefaultMedian)
	s.Rate = cmp.Or(s.Rate, DefaultRate)
	s.Absorb = cmp.Or(s.Absorb, DefaultAbsorb)
	if s.Workers <= 0 {
		s.Workers = runtime.GOMAXPROCS(0)
	}
	return s, s.check()
}

// Given returns the settings taken as given, a zero not read as its
// default as Resolved reads it: an error for a setting out of range, a
// zero included where it is not one of the setting's values, and a
// MinContrast of 0 as NoMinContrast, which New keeps. It is for settings
// that were all given, with the defaults in those not set (the command
// line's flags, Python's keywords), where a zero is what was asked for:
// "--learn 0" is an error to report, not the default 100 to take, and
// "--min-contrast 0" no floor, not the default 0.06.
func (s Settings) Given() (Settings, error) {
	c := s
	if c.MinContrast == NoMinContrast {
		c.MinContrast = 0
	}
	if err := c.check(); err != nil {
		return s, err
	}
	if s.MinContrast == 0 {
		s.MinContrast = NoMinContrast
	}
	return s, nil
}

// check reports a setting out of range, each as it is.
func (s Settings) check() error {
	switch {
	case s.Learn < 2:
		return &InputError{"learn", s.Learn, "must be at least 2 frames"}
	case s.Rank < 1 || s.Rank >= s.Learn:
		return &InputError{"rank", s.Rank, fmt.Sprintf("must lie in [1, %d), below the learning frames", s.Learn)}
	case !(s.Threshold > 0) || math.IsInf(s.Threshold, 0):
		return &InputError{"threshold", s.Threshold, "must be positive"}
	case !(s.MinContrast >= 0 && s.MinContrast < 1):
		return &InputError{"min-contrast", s.MinContrast, "must lie in [0, 1)"}
	case !(s.MaxContrast > s.MinContrast && s.MaxContrast <= 1):
		return &InputError{"max-contrast", s.MaxContrast, fmt.Sprintf("must lie in (min-contrast %g, 1]", s.MinContrast)}
	case s.Median < 1 || s.Median%2 == 0:
		return &InputError{"median", s.Median, "must be odd and positive (1 for no filter)"}
	case s.Absorb < -1 || s.Absorb == 0 || s.Absorb > 60000:
		return &InputError{"absorb", s.Absorb, "must lie in [1, 60000] frames, or be -1 for never"}
	case !(s.Rate > 0 && s.Rate < 1):
		return &InputError{"rate", s.Rate, "must lie in (0, 1)"}
	}
	return nil
}

// An InputError is a bad setting or frame: it names the input and the
// reason.
type InputError struct {
	Input  string
	Value  any
	Reason string
}

func (e *InputError) Error() string {
	if e.Value == nil {
		return fmt.Sprintf("background: %s: %s", e.Input, e.Reason)
	}
	return fmt.Sprintf("background: %s %v: %s", e.Input, e.Value, e.Reason)
}

// A Subtractor makes the masks of a video's frames, fed one at a time to
// Apply. It is not safe for concurrent use.
type Subtractor struct {
	s             Settings
	width, height int
	n             int       // pixels
	ch            int       // channels a pixel: 1 (gray) or 3 (colour)
	rows          int       // the model's rows, a pixel's channel each: n × ch
	learn         []float32 // the learning frames, row by row (rows × Learn)
	frames        int       // frames applied
	learned       bool
	failed        error // the learning's failure, which every later call returns
	// The model: the basis (rows × Rank, row-major), each row's variance
	// (its scale squared), the last frame's coefficients.
	u    []float32
	vari []float32
	coef []float64
	// Buffers of a frame.
	resid []float32 // the frame's residual, a row each
	hits  []uint8   // pixels beyond both thresholds, 0 or 1
	rowS  []uint8   // hits summed over each pixel's window of its row
	mask  []uint8
	// Each pixel's frames in a row in the mask, up to Absorb: a pixel
	// foreground that long is updated as background (a ghost or an object
	// that stopped is absorbed).
	still []uint16
	// The runs of background of hole filling, and each row's first.
	runs   []run
	rowRun []int32
	// What the learning fit did.
	LearnInfo LearnInfo
}

// LearnInfo is what the learning fit did.
type LearnInfo struct {
	Frames     int     `json:"frames"`
	Rank       int     `json:"rank"`
	Status     string  `json:"status"`     // the sample's fit's
	Iterations int     `json:"iterations"` // of the sample's fit
	SampleRows int     `json:"sample_pixels"`
	Seconds    float64 `json:"seconds"`
	// Scale is the median of the pixels' scales, of the gray range.
	Scale float64 `json:"median_scale"`
}

const (
	// sampleStride is the stride of the pixels the per-frame regression
	// weighs: it has Rank unknowns, which a sample of one pixel in 13
	// (5,900 of a 320 × 240 frame) fixes to well within the noise.
	sampleStride = 13
	// chunks is the number of pieces the regression's sums are taken in,
	// then added in order: the same bits whatever the cores.
	chunks = 8
	// huber is the Huber weight's knee, in the pixel's scales: residuals
	// beyond it (the foreground) weigh less, as 1/|z|.
	huber = 2
	// regressionSteps are the reweighted solves of a frame's
	// coefficients, from the last frame's.
	regressionSteps = 1
	// learnBudget is the most entries of the sample of pixels the
	// learning fit runs on (one row in 30 of a 320 × 240 × 100 block),
	// and learnIterations its iterations: 0.3 s on 2 cores.
	learnBudget     = 1 << 16
	learnIterations = 25
	// ladSteps are the reweighted least-squares steps of each pixel's
	// least absolute deviations against the frames' factors.
	ladSteps = 4
)

// channels3 returns 3 for colour, 1 for gray.
func channels3(color bool) int {
	if color {
		return 3
	}
	return 1
}

// New returns a Subtractor of width × height gray frames.
func New(width, height int, s Settings) (*Subtractor, error) {
	s, err := s.Resolved()
	if err != nil {
		return nil, err
	}
	if width < 1 || height < 1 || width > 1<<15 || height > 1<<15 {
		return nil, &InputError{"size", fmt.Sprintf("%dx%d", width, height), "want positive dimensions of at most 32768"}
	}
	n := width * height
	if n < 100*sampleStride {
		return nil, &InputError{"size", fmt.Sprintf("%dx%d", width, height), fmt.Sprintf("too few pixels (want at least %d)", 100*sampleStride)}
	}
	if ch := int64(channels3(s.Color)); int64(n)*ch*int64(s.Learn) > 1<<31 {
		return nil, &InputError{"learn", s.Learn, fmt.Sprintf("%d frames of %dx%d hold %d values, more than 2^31", s.Learn, width, height, int64(n)*ch*int64(s.Learn))}
	}
	if s.Median > 255 || s.Median > min(width, height) {
		return nil, &InputError{"median", s.Median, "the majority filter's window is wider than the frame (or 255)"}
	}
	ch := 1
	if s.Color {
		ch = 3
	}
	b := &Subtractor{s: s, width: width, height: height, n: n, ch: ch, rows: n * ch, learn: make([]float32, n*ch*s.Learn)}
	b.resid, b.hits, b.rowS, b.mask = make([]float32, n*ch), make([]uint8, n), make([]uint8, n), make([]uint8, n)
	b.still = make([]uint16, n)
	return b, nil
}

// Size returns the frames' width and height.
func (b *Subtractor) Size() (width, height int) { return b.width, b.height }

// Settings returns the settings, the defaults filled in.
func (b *Subtractor) Settings() Settings { return b.s }

// Learning reports whether the Subtractor is still gathering its learning
// frames (Apply emits no mask yet).
func (b *Subtractor) Learning() bool { return !b.learned }

// Apply takes the next frame (width × height gray values, row by row, 0 to
// 255; with Settings.Color three values a pixel, R, G and B) and calls emit with the masks that are ready, in frame order: none
// while the background is learned, then those of the learning frames and
// of this one at once, then one a frame. A mask is 0 (background) or 255
// (foreground) a pixel, row by row; emit must not keep it past its call.
// index counts the frames from 0.
func (b *Subtractor) Apply(ctx context.Context, frame []uint8, emit func(index int, mask []uint8) error) error {
	if b.failed != nil {
		return b.failed
	}
	if len(frame) != b.rows {
		return &InputError{"frame", b.frames, fmt.Sprintf("has %d values, want %d × %d × %d = %d", len(frame), b.width, b.height, b.ch, b.rows)}
	}
	if !b.learned {
		t := b.frames
		for p, v := range frame {
			b.learn[p*b.s.Learn+t] = float32(v) / 255
		}
		b.frames++
		if b.frames < b.s.Learn {
			return nil
		}
		return b.learnOnce(ctx, b.s.Learn, emit)
	}
	index := b.frames
	b.frames++
	b.track(frame)
	return emit(index, b.mask)
}

// Flush learns from the frames applied when fewer than Settings.Learn came
// (a short video), and emits their masks; it does nothing once learned.
func (b *Subtractor) Flush(ctx context.Context, emit func(index int, mask []uint8) error) error {
	if b.failed != nil {
		return b.failed
	}
	if b.learned || b.frames == 0 {
		return nil
	}
	if b.frames < 2 {
		return &InputError{"frames", b.frames, "too few to learn a background from: want 2 at least"}
	}
	// The first frames, compacted to their own columns.
	t := b.frames
	short := make([]float32, b.rows*t)
	for p := range b.rows {
		copy(short[p*t:(p+1)*t], b.learn[p*b.s.Learn:p*b.s.Learn+t])
	}
	b.learn = short
	return b.learnOnce(ctx, t, emit)
}

// learnOnce runs finishLearning; a failure (the fit's, emit's or ctx's)
// ends the Subtractor, whose learning frames may then be half overwritten
// by their residuals: every later Apply and Flush returns it.
func (b *Subtractor) learnOnce(ctx context.Context, t int, emit func(int, []uint8) error) error {
	if err := b.finishLearning(ctx, t, emit); err != nil {
		b.failed = fmt.Errorf("the background's learning failed: %w", err)
		return err
	}
	return nil
}

// finishLearning fits the background to the t learning frames and emits
// their masks.
func (b *Subtractor) finishLearning(ctx context.Context, t int, emit func(int, []uint8) error) error {
	t0 := time.Now()
	k := min(b.s.Rank, t-1)
	r, info, err := b.fitSample(ctx, t, k)
	if err != nil {
		return err
	}
	k = len(r) / t
	b.u, b.vari = make([]float32, b.rows*k), make([]float32, b.rows)
	// Each row by least absolute deviations against r, and its scale:
	// 1.4826 × the median |residual| over the frames.
	par.Do(b.s.Workers, (b.rows+1023)/1024, func(blk int) {
		e, w := make([]float64, t), make([]float64, t)
		for p := blk * 1024; p < min(b.rows, (blk+1)*1024); p++ {
			y := b.learn[p*t : (p+1)*t]
			lp := ladRow(y, r, k, e, w)
			for c, v := range lp {
				b.u[p*k+c] = float32(v)
			}
			// The residuals of the basis as kept (float32), in place of
			// the frames, and their sizes.
			for j := range e {
				var x float32
				for c := range k {
					x += b.u[p*k+c] * float32(r[j*k+c])
				}
				y[j] -= x
				e[j] = math.Abs(float64(y[j]))
			}
			// max(minScale, 1.4826 × the median), without the median when
			// half the sizes are within the floor's (most pixels).
			small := 0
			for _, v := range e {
				if v <= minScale/1.4826 {
					small++
				}
			}
			s := minScale
			if 2*small <= t {
				s = max(minScale, 1.4826*median(e))
			}
			b.vari[p] = float32(s * s)
		}
	})
	scales := make([]float64, b.rows)
	for p, v := range b.vari {
		scales[p] = math.Sqrt(float64(v))
	}
	info.Scale = median(scales)
	// The learning frames' masks, from the fit's residuals (which b.learn
	// now holds), gathered a group of frames at a time.
	const group = 16
	frames := make([][]float32, min(group, t))
	for i := range frames {
		frames[i] = make([]float32, b.rows)
	}
	for j0 := 0; j0 < t; j0 += group {
		j1 := min(t, j0+group)
		par.Do(b.s.Workers, (b.rows+4095)/4096, func(blk int) {
			for p := blk * 4096; p < min(b.rows, (blk+1)*4096); p++ {
				for j, e := range b.learn[p*t+j0 : p*t+j1] {
					frames[j][p] = e
				}
			}
		})
		for j := j0; j < j1; j++ {
			copy(b.resid, frames[j-j0])
			b.decide(nil, nil)
			if err := emit(j, b.mask); err != nil {
				return err
			}
		}
	}
	b.coef = slices.Clone(r[(t-1)*k : t*k])
	info.Seconds = time.Since(t0).Seconds()
	b.LearnInfo, b.learn, b.learned = info, nil, true
	return nil
}

// fitSample returns the frames' factors (t × k, row-major) of the scaled
// subgradient method's robust PCA of a sample of the learning frames'
// pixels, every stride-th, no more than learnBudget entries.
func (b *Subtractor) fitSample(ctx context.Context, t, k int) ([]float64, LearnInfo, error) {
	stride := max(1, (b.rows*t+learnBudget-1)/learnBudget)
	if b.ch > 1 && stride%b.ch == 0 { // else every row sampled is one channel's
		stride++
	}
	rows := (b.rows + stride - 1) / stride
	start, cols, y := make([]int, rows+1), make([]int32, rows*t), make([]float64, rows*t)
	for i := range rows {
		start[i+1] = (i + 1) * t
		for j, v := range b.learn[i*stride*t : (i*stride+1)*t] {
			cols[i*t+j], y[i*t+j] = int32(j), float64(v)
		}
	}
	op, err := completion.NewEntriesCSR(rows, t, start, cols)
	if err != nil {
		return nil, LearnInfo{}, err
	}
	res, err := scaledsm.Solve(ctx, scaledsm.Problem{Op: op, Y: y, Rank: k},
		scaledsm.Settings{Method: scaledsm.ScaledSM, Loss: scaledsm.L1, MaxIter: learnIterations})
	switch {
	case ctx.Err() != nil:
		return nil, LearnInfo{}, ctx.Err()
	case err != nil:
		return nil, LearnInfo{}, fmt.Errorf("the learning fit: %w", err)
	case res.Status.Failed():
		// Frames with nothing to factor (all of one value, say black):
		// a background of rank one, each pixel's median.
		r := make([]float64, t)
		for j := range r {
			r[j] = 1
		}
		return r, LearnInfo{Frames: t, Rank: 1, Status: res.Status.String() + ", each pixel's median instead", Iterations: res.Iterations, SampleRows: rows}, nil
	}
	rm := res.Factors.R
	_, k = rm.Dims()
	r := make([]float64, t*k)
	for j := range t {
		for c := range k {
			r[j*k+c] = rm.At(j, c)
		}
	}
	return r, LearnInfo{Frames: t, Rank: k, Status: res.Status.String(), Iterations: res.Iterations, SampleRows: rows}, nil
}

// ladRow returns the least absolute deviations fit of y by the rows of r
// (t × k), by reweighted least squares from the least-squares fit; e is
// left holding the residuals, w is scratch.
func ladRow(y []float32, r []float64, k int, e, w []float64) []float64 {
	if k == 2 {
		return ladRow2(y, r, e, w)
	}
	t := len(y)
	x := make([]float64, k)
	a := make([]float64, k*k)
	for j := range w {
		w[j] = 1
	}
	for step := 0; ; step++ {
		clear(a)
		clear(x)
		for j := range t {
			rj := r[j*k : (j+1)*k]
			for i, ri := range rj {
				wr := w[j] * ri
				x[i] += wr * float64(y[j])
				for m := i; m < k; m++ {
					a[i*k+m] += wr * rj[m]
				}
			}
		}
		if !solveSmall(a, x, k) {
			clear(x)
		}
		for j := range t {
			v := float64(y[j])
			for c := range k {
				v -= r[j*k+c] * x[c]
			}
			e[j] = v
			w[j] = 1 / max(math.Abs(v), 1e-4)
		}
		if step == ladSteps {
			return x
		}
	}
}

// ladRow2 is ladRow of rank 2, its sums in scalars.
func ladRow2(y []float32, r []float64, e, w []float64) []float64 {
	r, e, w = r[:2*len(y)], e[:len(y)], w[:len(y)]
	for j := range w {
		w[j] = 1
	}
	var x0, x1 float64
	for step := 0; ; step++ {
		var a00, a01, a11, b0, b1 float64
		for j, v := range y {
			r0, r1, wj := r[2*j], r[2*j+1], w[j]
			yv := float64(v)
			a00 += wj * r0 * r0
			a01 += wj * r0 * r1
			a11 += wj * r1 * r1
			b0 += wj * r0 * yv
			b1 += wj * r1 * yv
		}
		if det := a00*a11 - a01*a01; det > 1e-12*a00*a11 && a00 > 0 {
			x0, x1 = (a11*b0-a01*b1)/det, (a00*b1-a01*b0)/det
		} else {
			x0, x1 = 0, 0
		}
		for j, v := range y {
			d := float64(v) - r[2*j]*x0 - r[2*j+1]*x1
			e[j] = d
			w[j] = 1 / max(math.Abs(d), 1e-4)
		}
		if step == ladSteps {
			return []float64{x0, x1}
		}
	}
}

// median returns the median of v, which it reorders.
func median(v []float64) float64 {
	n := len(v)
	switch {
	case n == 0:
		return 0
	case n%2 == 1:
		return order.Kth(v, n/2)
	}
	hi := order.Kth(v, n/2)
	lo := v[0] // the largest of the lower half, which Kth left before n/2
	for _, x := range v[:n/2] {
		lo = max(lo, x)
	}
	return (lo + hi) / 2
}

// track fits the frame to the background, decides its mask and moves the
// background toward it.
func (b *Subtractor) track(frame []uint8) {
	c := b.regress(frame)
	copy(b.coef, c)
	c32 := make([]float32, len(c))
	for a, v := range c {
		c32[a] = float32(v)
	}
	b.decide(frame, c32)
}

// rowBlocks returns the first row of each block of rows the cores share,
// and the height.
func (b *Subtractor) rowBlocks() []int {
	n := max(1, min(b.height, 4*b.s.Workers))
	out := make([]int, n+1)
	for j := range out {
		out[j] = j * b.height / n
	}
	return out
}

// regress returns the frame's coefficients on the basis: Huber-weighted
// least squares over the sample of pixels, each residual in its pixel's
// scale, from the last frame's coefficients. The sums are taken in chunks
// fixed by the frame's size, then added in order.
func (b *Subtractor) regress(frame []uint8) []float64 {
	k := len(b.coef)
	c := slices.Clone(b.coef)
	kk := k*k + k
	parts := make([]float64, chunks*kk)
	samples := (b.rows + sampleStride - 1) / sampleStride
	for range regressionSteps {
		par.Do(b.s.Workers, chunks, func(ch int) {
			a, rhs := parts[ch*kk:ch*kk+k*k], parts[ch*kk+k*k:(ch+1)*kk]
			clear(a)
			clear(rhs)
			for q := ch * samples / chunks; q < (ch+1)*samples/chunks; q++ {
				p := q * sampleStride
				up := b.u[p*k : (p+1)*k]
				yp := float64(frame[p]) / 255
				x := yp
				for j, cj := range c {
					x -= float64(up[j]) * cj
				}
				v := float64(b.vari[p])
				w := 1 / v
				if z2 := x * x / v; z2 > huber*huber {
					w *= huber / math.Sqrt(z2)
				}
				for i, ui := range up {
					wu := w * float64(ui)
					rhs[i] += wu * yp
					for j := i; j < k; j++ {
						a[i*k+j] += wu * float64(up[j])
					}
				}
			}
		})
		a, rhs := parts[:k*k], parts[k*k:kk]
		for ch := 1; ch < chunks; ch++ {
			for i, v := range parts[ch*kk : (ch+1)*kk] {
				parts[i] += v
			}
		}
		if !solveSmall(a, rhs, k) {
			return c
		}
		copy(c, rhs)
	}
	return c
}

// solveSmall solves the k×k symmetric positive definite system a x = b
// (a's upper triangle) in place, x in b, by a Cholesky factorization in
// a's lower triangle; false when a is not positive definite.
func solveSmall(a, b []float64, k int) bool {
	for i := range k {
		for j := i + 1; j < k; j++ {
			a[j*k+i] = a[i*k+j]
		}
	}
	for j := range k {
		d := a[j*k+j]
		for m := range j {
			d -= a[j*k+m] * a[j*k+m]
		}
		if !(d > 0) {
			return false
		}
		d = math.Sqrt(d)
		a[j*k+j] = d
		for i := j + 1; i < k; i++ {
			v := a[i*k+j]
			for m := range j {
				v -= a[i*k+m] * a[j*k+m]
			}
			a[i*k+j] = v / d
		}
	}
	for i := range k { // L y = b
		v := b[i]
		for m := range i {
			v -= a[i*k+m] * b[m]
		}
		b[i] = v / a[i*k+i]
	}
	for i := k - 1; i >= 0; i-- { // Lᵀ x = y
		v := b[i]
		for m := i + 1; m < k; m++ {
			v -= a[m*k+i] * b[m]
		}
		b[i] = v / a[i*k+i]
	}
	return true
}

// decide sets the mask of a frame: a pixel whose residual is beyond
// Threshold of its scale and MinContrast is a hit, and the mask is the
// hits' majority over the Median × Median window around each pixel (the
// window cut at the frame's edges). With the frame and its coefficients c
// it computes the residual, then moves the basis and the scales toward
// the frame's background pixels (updateRow); with nil ones (a learning
// frame) the residual is b.resid's already.
func (b *Subtractor) decide(frame []uint8, c []float32) {
	w, h, half := b.width, b.height, b.s.Median/2
	rows := b.rowBlocks()
	par.Do(b.s.Workers, len(rows)-1, func(j int) {
		for y := rows[j]; y < rows[j+1]; y++ {
			b.hitRow(y, frame, c)
		}
	})
	// The extent of the window across each column.
	wide := make([]int32, w)
	for x := range w {
		wide[x] = int32(min(w, x+half+1) - max(0, x-half))
	}
	par.Do(b.s.Workers, len(rows)-1, func(j int) {
		cols := make([]int32, w) // the row sums over the window's rows
		y0, y1 := rows[j], rows[j+1]
		for yy := max(0, y0-half); yy < min(h, y0+half); yy++ {
			for x, v := range b.rowS[yy*w : (yy+1)*w] {
				cols[x] += int32(v)
			}
		}
		for y := y0; y < y1; y++ {
			if in := y + half; in < h {
				for x, v := range b.rowS[in*w : (in+1)*w] {
					cols[x] += int32(v)
				}
			}
			if out := y - half - 1; y > y0 && out >= 0 {
				for x, v := range b.rowS[out*w : (out+1)*w] {
					cols[x] -= int32(v)
				}
			}
			tall := int32(min(h, y+half+1) - max(0, y-half))
			m := b.mask[y*w : (y+1)*w]
			for x, n := range cols {
				m[x] = 0
				if 2*n > tall*wide[x] {
					m[x] = 255
				}
			}
		}
	})
	if !b.s.KeepHoles {
		b.fillHoles()
	}
	if c != nil {
		par.Do(b.s.Workers, len(rows)-1, func(j int) {
			for y := rows[j]; y < rows[j+1]; y++ {
				b.updateRow(y, c)
			}
		})
	}
}

// A run is a row's stretch of background pixels, [x0, x1), and its
// component (a union-find forest over the runs).
type run struct {
	x0, x1 int32
	parent int32
	edge   bool // its component touches the frame's edge (at the root)
}

// fillHoles sets the mask's holes to foreground: the background regions
// that do not reach the frame's edge through background pixels (four
// neighbours), found by joining each row's runs of background with the
// runs of the row above that they touch.
func (b *Subtractor) fillHoles() {
	w, h := int32(b.width), b.height
	runs, first := b.runs[:0], b.rowRun[:0]
	find := func(i int32) int32 {
		for runs[i].parent != i {
			runs[i].parent = runs[runs[i].parent].parent
			i = runs[i].parent
		}
		return i
	}
	union := func(i, j int32) {
		i, j = find(i), find(j)
		if i == j {
			return
		}
		if j < i {
			i, j = j, i
		}
		runs[j].parent = i
		runs[i].edge = runs[i].edge || runs[j].edge
	}
	for y := range h {
		first = append(first, int32(len(runs)))
		m := b.mask[y*int(w) : (y+1)*int(w)]
		for x := int32(0); x < w; {
			if m[x] != 0 {
				x++
				continue
			}
			x0 := x
			for x < w && m[x] == 0 {
				x++
			}
			i := int32(len(runs))
			runs = append(runs, run{x0: x0, x1: x, parent: i, edge: y == 0 || y == h-1 || x0 == 0 || x == w})
		}
		if y == 0 {
			continue
		}
		// Join with the runs above that overlap.
		above, here, end := first[y-1], first[y], int32(len(runs))
		for i, a := here, above; i < end && a < here; {
			if runs[a].x0 < runs[i].x1 && runs[i].x0 < runs[a].x1 {
				union(i, a)
			}
			if runs[a].x1 < runs[i].x1 {
				a++
			} else {
				i++
			}
		}
	}
	first = append(first, int32(len(runs)))
	for y := range h {
		for i := first[y]; i < first[y+1]; i++ {
			if r := runs[i]; !runs[find(i)].edge {
				clear255(b.mask[y*int(w)+int(r.x0) : y*int(w)+int(r.x1)])
			}
		}
	}
	b.runs, b.rowRun = runs, first
}

// clear255 sets every value of m to 255.
func clear255(m []uint8) {
	for i := range m {
		m[i] = 255
	}
}

// hitRow sets row y's residual (from the frame and its coefficients c,
// unless they are nil), its hits and their sums over the window's width.
func (b *Subtractor) hitRow(y int, frame []uint8, c []float32) {
	if b.ch > 1 {
		b.hitRowColor(y, frame, c)
		b.rowSums(y)
		return
	}
	w, k := b.width, len(b.coef)
	lo, hi := y*w, (y+1)*w
	res, vari, hits := b.resid[lo:hi], b.vari[lo:hi], b.hits[lo:hi]
	vari, hits = vari[:len(res)], hits[:len(res)]
	// A hit: e² > Threshold² × variance and e² > MinContrast², or e² >
	// MaxContrast².
	t2, d2, dd2 := float32(b.s.Threshold*b.s.Threshold), float32(b.s.MinContrast*b.s.MinContrast), float32(b.s.MaxContrast*b.s.MaxContrast)
	if c != nil && k == 2 { // the common case, in one pass
		u, f := b.u[lo*2:hi*2], frame[lo:hi]
		u, f = u[:2*len(res)], f[:len(res)]
		c0, c1 := c[0], c[1]
		for x := range res {
			e := float32(f[x])*(1.0/255) - u[2*x]*c0 - u[2*x+1]*c1
			res[x] = e
			e2 := e * e
			var h uint8
			if (e2 > t2*vari[x] && e2 > d2) || e2 > dd2 {
				h = 1
			}
			hits[x] = h
		}
	} else {
		if c != nil {
			u, f := b.u[lo*k:hi*k], frame[lo:hi]
			for x := range res {
				v := float32(f[x]) * (1.0 / 255)
				for a, ca := range c {
					v -= u[x*k+a] * ca
				}
				res[x] = v
			}
		}
		for x, e := range res {
			e2 := e * e
			var h uint8
			if (e2 > t2*vari[x] && e2 > d2) || e2 > dd2 {
				h = 1
			}
			hits[x] = h
		}
	}
	b.rowSums(y)
}

// rowSums sets row y's hits summed over the window's width.
func (b *Subtractor) rowSums(y int) {
	w, half := b.width, b.s.Median/2
	hits, sr := b.hits[y*w:(y+1)*w], b.rowS[y*w:(y+1)*w]
	var run uint8
	for x := range min(half, w) {
		run += hits[x]
	}
	for x := range w {
		if x+half < w {
			run += hits[x+half]
		}
		if x-half-1 >= 0 {
			run -= hits[x-half-1]
		}
		sr[x] = run
	}
}

// hitRowColor is hitRow of colour frames: a pixel is a hit when one of
// its channels is.
func (b *Subtractor) hitRowColor(y int, frame []uint8, c []float32) {
	w, k, ch := b.width, len(b.coef), b.ch
	lo, hi := y*w*ch, (y+1)*w*ch
	res, vari := b.resid[lo:hi], b.vari[lo:hi]
	if c != nil {
		u, f := b.u[lo*k:hi*k], frame[lo:hi]
		for r := range res {
			v := float32(f[r]) * (1.0 / 255)
			for a, ca := range c {
				v -= u[r*k+a] * ca
			}
			res[r] = v
		}
	}
	t2, d2, dd2 := float32(b.s.Threshold*b.s.Threshold), float32(b.s.MinContrast*b.s.MinContrast), float32(b.s.MaxContrast*b.s.MaxContrast)
	hits := b.hits[y*w : (y+1)*w]
	for x := range hits {
		var h uint8
		for r := x * ch; r < (x+1)*ch; r++ {
			if e2 := res[r] * res[r]; (e2 > t2*vari[r] && e2 > d2) || e2 > dd2 {
				h = 1
			}
		}
		hits[x] = h
	}
}

// updateRow moves the basis and the variances of row y toward the frame's
// background pixels: a rank-one step of the basis along the coefficients,
// U_p += Rate e_p cᵀ/|c|², and the variance toward e_p² (no less than
// minScale²).
func (b *Subtractor) updateRow(y int, c []float32) {
	if b.ch > 1 {
		b.updateRowColor(y, c)
		return
	}
	k := len(c)
	var cc float32
	for _, v := range c {
		cc += v * v
	}
	if !(cc > 0) {
		return
	}
	eta := float32(b.s.Rate)
	floor := float32(minScale * minScale)
	lo, hi := y*b.width, (y+1)*b.width
	mask, hits, res, vari := b.mask[lo:hi], b.hits[lo:hi], b.resid[lo:hi], b.vari[lo:hi]
	mask, hits, res = mask[:len(vari)], hits[:len(vari)], res[:len(vari)]
	g := eta / cc
	still := b.still[lo:hi]
	still = still[:len(vari)]
	ab := newAbsorber(b.s.Absorb)
	if k == 2 {
		u := b.u[2*lo : 2*hi]
		u = u[:2*len(vari)]
		g0, g1 := g*c[0], g*c[1]
		for x := range vari {
			if !ab.updates(mask[x], hits[x], &still[x]) {
				continue
			}
			e := res[x]
			u[2*x] += g0 * e
			u[2*x+1] += g1 * e
			vari[x] += eta * (max(e*e, floor) - vari[x])
		}
		return
	}
	u := b.u[lo*k : hi*k]
	for x := range vari {
		if !ab.updates(mask[x], hits[x], &still[x]) {
			continue
		}
		e := res[x]
		for a, ca := range c {
			u[x*k+a] += g * e * ca
		}
		vari[x] += eta * (max(e*e, floor) - vari[x])
	}
}

// An absorber says which pixels update the model: those neither hits nor
// in the mask, and those in the mask after frames in a row (never, for
// Settings.Absorb -1), counting each pixel's frames in the mask.
type absorber struct {
	after uint16
	never bool
}

func newAbsorber(absorb int) absorber {
	return absorber{after: uint16(min(60000, max(1, absorb))), never: absorb < 0}
}

// updates reports whether a pixel of this mask and hit value updates the
// model, and counts its frames in the mask in still.
func (a absorber) updates(mask, hit uint8, still *uint16) bool {
	switch {
	case mask == 0:
		*still = 0
		return hit == 0
	case *still < a.after:
		*still++
		return false
	}
	return !a.never
}

// updateRowColor is updateRow of colour frames: a pixel's channels move
// together, as the pixel is background or not.
func (b *Subtractor) updateRowColor(y int, c []float32) {
	k, ch := len(c), b.ch
	var cc float32
	for _, v := range c {
		cc += v * v
	}
	if !(cc > 0) {
		return
	}
	eta := float32(b.s.Rate)
	floor := float32(minScale * minScale)
	g := eta / cc
	lo, hi := y*b.width, (y+1)*b.width
	mask, hits, still := b.mask[lo:hi], b.hits[lo:hi], b.still[lo:hi]
	ab := newAbsorber(b.s.Absorb)
	for x := range mask {
		if !ab.updates(mask[x], hits[x], &still[x]) {
			continue
		}
		for r := (lo + x) * ch; r < (lo+x+1)*ch; r++ {
			e := b.resid[r]
			for a, ca := range c {
				b.u[r*k+a] += g * e * ca
			}
			b.vari[r] += eta * (max(e*e, floor) - b.vari[r])
		}
	}
}

// Background returns the background the model holds for the last frame,
// 0 to 255 a value, the frames' layout (nil before it has learned).
func (b *Subtractor) Background() []uint8 {
	if !b.learned {
		return nil
	}
	k := len(b.coef)
	out := make([]uint8, b.rows)
	for p := range b.rows {
		var x float64
		for a, ca := range b.coef {
			x += float64(b.u[p*k+a]) * ca
		}
		out[p] = uint8(min(255, max(0, math.Round(255*x))))
	}
	return out
}

// Frames returns the number of frames applied.
func (b *Subtractor) Frames() int { return b.frames }
