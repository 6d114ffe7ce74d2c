package experiment

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/completion"
)

// astronautPNG is NASA's public-domain photograph of the astronaut Eileen
// Collins, 512 × 512 in 8-bit gray (see testdata/README.md).
//
//go:embed testdata/astronaut.png
var astronautPNG []byte

// Astronaut returns the study's photograph: its pixels in [0, 1], row by
// row, and its width and height.
func Astronaut() (pix []float64, w, h int, err error) {
	img, err := png.Decode(bytes.NewReader(astronautPNG))
	if err != nil {
		return nil, 0, 0, fmt.Errorf("astronaut.png: %w", err)
	}
	b := img.Bounds()
	w, h = b.Dx(), b.Dy()
	pix = make([]float64, w*h)
	for i := range h {
		for j := range w {
			pix[i*w+j] = float64(color.GrayModel.Convert(img.At(b.Min.X+j, b.Min.Y+i)).(color.Gray).Y) / 255
		}
	}
	return pix, w, h, nil
}

// ImageConfig sets up the real-image study, beyond the paper (issue 13,
// item 10): a fraction Observed of the pixels is seen, a fraction Salt of
// those is replaced by salt-and-pepper values (0 or 1, evenly), and the
// image is recovered at rank Rank from what is seen.
type ImageConfig struct {
	Rank int
	// Ranks are more ranks at which the default method is fitted, to show
	// that a larger rank does not give a worse picture.
	Ranks    []int
	Observed float64
	Salt     float64
	Seed     uint64
	MaxIter  int
	Tol      float64 // the solves stop when the iterate's relative change falls to Tol
}

// DefaultImage is the study of the report: half the pixels seen, 10% of
// them salt and pepper, rank 30 (and the default method at ranks 10 and
// 50 too), at most 300 iterations to a relative change of 1e-7, seed 1.
func DefaultImage() ImageConfig {
	return ImageConfig{Rank: 30, Ranks: []int{10, 50}, Observed: 0.5, Salt: 0.1, Seed: 1, MaxIter: 300, Tol: 1e-7}
}

// Validate checks the configuration.
func (c ImageConfig) Validate() error {
	switch {
	case c.Rank < 1:
		return fmt.Errorf("image study: rank %d must be positive", c.Rank)
	case slices.Min(append([]int{1}, c.Ranks...)) < 1:
		return fmt.Errorf("image study: ranks %v must be positive", c.Ranks)
	case !(c.Observed > 0 && c.Observed <= 1):
		return fmt.Errorf("image study: observed fraction %g must lie in (0, 1]", c.Observed)
	case !(c.Salt >= 0 && c.Salt < 0.5):
		return fmt.Errorf("image study: salt-and-pepper fraction %g must lie in [0, 0.5)", c.Salt)
	case c.MaxIter < 1 || !(c.Tol > 0):
		return errors.New("image study: an iteration limit and a tolerance are needed")
	}
	return nil
}

// ImageSolve is how one method did on the image.
type ImageSolve struct {
	Solver     Solver  `json:"solver"`
	Status     string  `json:"status"`
	Iterations int     `json:"iterations"`
	PSNR       float64 `json:"psnr_db"`
	Rank       int     `json:"rank,omitempty"`  // of the rank sweep: the rank fitted
	Ridge      float64 `json:"ridge,omitempty"` // the penalty the default chose (Settings.Ridge)
}

// ImageResult is the measured image study. The images are 8-bit gray,
// row by row; Corrupted shows the hidden pixels black.
type ImageResult struct {
	Config        ImageConfig  `json:"config"`
	Width, Height int          `json:"-"`
	Seen, Salted  int          `json:"-"`
	CorruptedPSNR float64      `json:"corrupted_psnr_db"`
	BestPSNR      float64      `json:"best_rank_psnr_db"` // of the best rank-r approximation of the original (the SVD's)
	Solves        []ImageSolve `json:"solves"`            // the default method, then ScaledGD l2sq
	// Sweep is the default method at the ranks of Config.Ranks and
	// Config.Rank, in increasing order.
	Sweep   []ImageSolve `json:"rank_sweep,omitempty"`
	Seconds float64      `json:"seconds"`
	Machine string       `json:"machine"`

	Original, Corrupted *image.Gray   `json:"-"`
	Recovered           []*image.Gray `json:"-"` // one per solve
}

// psnr returns the peak signal-to-noise ratio of x against the original o
// (pixels in [0, 1]): 10 log10(1/MSE) in dB.
func psnr(x, o []float64) float64 {
	var s float64
	for i := range o {
		d := x[i] - o[i]
		s += d * d
	}
	return 10 * math.Log10(float64(len(o))/s)
}

// gray returns pixels in [0, 1] (clipped) as an 8-bit image.
func gray(pix []float64, w, h int) *image.Gray {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i, v := range pix {
		img.Pix[i] = uint8(math.Round(255 * min(max(v, 0), 1)))
	}
	return img
}

// RunImage measures the image study: the seen pixels as entries of a
// matrix (completion.NewEntries), recovered by the default method of the
// entry models (completion.DefaultSettings), by plain ScaledGD on least
// squares (Constant{Eta: L2Eta}) and by plain ScaledSM on l1 (Auto), all from the spectral start with the
// median trimming; the recovered images are clipped to [0, 1].
func RunImage(ctx context.Context, c ImageConfig) (*ImageResult, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	orig, w, h, err := Astronaut()
	if err != nil {
		return nil, err
	}
	res := &ImageResult{Config: c, Width: w, Height: h, Machine: Machine()}
	rng := rand.New(rand.NewPCG(c.Seed, 0x1a6e))
	var rows, cols []int32
	var vals []float64
	shown := make([]float64, w*h) // hidden pixels black
	for i := range h {
		for j := range w {
			if rng.Float64() >= c.Observed {
				continue
			}
			v := orig[i*w+j]
			if rng.Float64() < c.Salt {
				v = float64(rng.IntN(2))
				res.Salted++
			}
			rows, cols, vals = append(rows, int32(i)), append(cols, int32(j)), append(vals, v)
			shown[i*w+j] = v
		}
	}
	res.Seen = len(vals)
	op, y, err := completion.NewEntries(h, w, rows, cols, vals)
	if err != nil {
		return nil, fmt.Errorf("image study: %w", err)
	}
	res.Original, res.Corrupted = gray(orig, w, h), gray(shown, w, h)
	res.CorruptedPSNR = psnr(shown, orig)
	if res.BestPSNR, err = bestRankPSNR(orig, w, h, c.Rank); err != nil {
		return nil, err
	}
	// solve fits the image at rank k with the method s and returns how
	// it did and the recovered picture, clipped to [0, 1].
	solve := func(s Solver, k int) (ImageSolve, []float64, error) {
		set := scaledsm.Settings{MaxIter: c.MaxIter, Tol: c.Tol}
		switch s {
		case Default:
			d := completion.DefaultSettings()
			set.Method, set.Loss, set.Step, set.Ridge = d.Method, d.Loss, d.Step, d.Ridge
		case ScaledGDL2:
			set.Method, set.Loss, set.Step = scaledsm.ScaledGD, scaledsm.L2Squared, scaledsm.Constant{Eta: L2Eta}
		case ScaledL1Auto:
			set.Method, set.Loss, set.Step = scaledsm.ScaledSM, scaledsm.L1, scaledsm.Auto{}
		}
		r, err := completion.Solve(ctx, scaledsm.Problem{Op: op, Y: y, Rank: k}, completion.Settings{Settings: set})
		if err != nil {
			return ImageSolve{}, nil, fmt.Errorf("image study, %s: %w", s, err)
		}
		if r.Status == scaledsm.Interrupted {
			return ImageSolve{}, nil, ctx.Err()
		}
		x := r.Factors.Product()
		rec := make([]float64, w*h)
		for i := range h {
			for j := range w {
				rec[i*w+j] = min(max(x.At(i, j), 0), 1)
			}
		}
		out := ImageSolve{Solver: s, Status: r.Status.String(), Iterations: r.Iterations, PSNR: finite(psnr(rec, orig)), Rank: k}
		if r.RidgeChoice != nil {
			out.Ridge = r.RidgeChoice.Ridge
		}
		return out, rec, nil
	}
	for _, s := range []Solver{Default, ScaledGDL2, ScaledL1Auto} {
		sv, rec, err := solve(s, c.Rank)
		if err != nil {
			return nil, err
		}
		res.Solves = append(res.Solves, sv)
		res.Recovered = append(res.Recovered, gray(rec, w, h))
		if s == Default && len(c.Ranks) > 0 {
			res.Sweep = append(res.Sweep, sv)
		}
	}
	for _, k := range c.Ranks {
		if slices.ContainsFunc(res.Sweep, func(s ImageSolve) bool { return s.Rank == k }) {
			continue
		}
		sv, _, err := solve(Default, k)
		if err != nil {
			return nil, err
		}
		res.Sweep = append(res.Sweep, sv)
	}
	slices.SortStableFunc(res.Sweep, func(a, b ImageSolve) int { return a.Rank - b.Rank })
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// bestRankPSNR is the PSNR of the best rank-r approximation of the image
// (its truncated SVD, clipped to [0, 1]): the most a rank-r recovery can
// reach.
func bestRankPSNR(pix []float64, w, h, r int) (float64, error) {
	var svd mat.SVD
	if !svd.Factorize(mat.NewDense(h, w, pix), mat.SVDThin) {
		return 0, errors.New("image study: the SVD of the image failed")
	}
	r = min(r, w, h)
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	sigma := svd.Values(nil)
	ur := mat.DenseCopyOf(u.Slice(0, h, 0, r))
	for k := range r {
		col := mat.Col(nil, k, ur)
		for i := range col {
			col[i] *= sigma[k]
		}
		ur.SetCol(k, col)
	}
	var x mat.Dense
	x.Mul(ur, v.Slice(0, w, 0, r).T())
	rec := make([]float64, w*h)
	for i := range h {
		for j := range w {
			rec[i*w+j] = min(max(x.At(i, j), 0), 1)
		}
	}
	return psnr(rec, pix), nil
}

// Image file names of the study.
const (
	ImageName = "image.json"
)

// ImageFiles returns the names of the study's PNGs: the original, the
// corrupted input, then one per solve.
func (r *ImageResult) ImageFiles() []string {
	names := []string{"astronaut_original.png", "astronaut_corrupted.png"}
	for _, s := range r.Solves {
		names = append(names, "astronaut_"+solverFile(s.Solver)+".png")
	}
	return names
}

func solverFile(s Solver) string {
	switch s {
	case Default:
		return "default"
	case ScaledGDL2:
		return "l2sq"
	case ScaledL1Auto:
		return "l1"
	}
	return "other"
}

// Images returns the study's images in the order of ImageFiles.
func (r *ImageResult) Images() []*image.Gray {
	return append([]*image.Gray{r.Original, r.Corrupted}, r.Recovered...)
}

// Captions returns a caption for each image of Images, with its PSNR
// against the original.
func (r *ImageResult) Captions() []string {
	c := r.Config
	out := []string{
		"original",
		fmt.Sprintf("corrupted: %g%% seen (hidden black), %g%% of those salt and pepper; PSNR %.1f dB", 100*c.Observed, 100*c.Salt, r.CorruptedPSNR),
	}
	for _, s := range r.Solves {
		ridge := ""
		if s.Ridge > 0 {
			ridge = fmt.Sprintf(", ridge μ = %.3g", s.Ridge)
		}
		out = append(out, fmt.Sprintf("%s, rank %d%s: PSNR %.1f dB (%s after %d iterations)", s.Solver, c.Rank, ridge, s.PSNR, s.Status, s.Iterations))
	}
	return out
}

// Claims checks the study's claim: the default method's PSNR beats the
// corrupted input's and the least-squares baseline's by at least 3 dB.
func (r *ImageResult) Claims() []Verdict {
	const margin = 3.0
	v := Verdict{Panel: "image (beyond the paper)",
		Claim:    "the default method recovers the photograph far better than the corrupted input and than ScaledGD on least squares",
		Expected: fmt.Sprintf("PSNR of the default ≥ %g dB above both", margin)}
	var def, l2 *ImageSolve
	for i := range r.Solves {
		switch r.Solves[i].Solver {
		case Default:
			def = &r.Solves[i]
		case ScaledGDL2:
			l2 = &r.Solves[i]
		}
	}
	if def == nil || l2 == nil {
		v.Measured = "missing solves"
		return []Verdict{v}
	}
	v.Measured = fmt.Sprintf("PSNR: corrupted %.1f dB, default %.1f dB, ScaledGD l2sq %.1f dB (best rank-%d approximation %.1f dB)",
		r.CorruptedPSNR, def.PSNR, l2.PSNR, r.Config.Rank, r.BestPSNR)
	v.Holds = def.PSNR >= r.CorruptedPSNR+margin && def.PSNR >= l2.PSNR+margin
	out := []Verdict{v}
	if len(r.Sweep) > 1 {
		out = append(out, r.sweepClaim())
	}
	return out
}

// SweepTolerance is how far, in dB, the default's PSNR at a larger rank
// may fall below a smaller rank's for the claim that more rank does not
// hurt to hold.
const SweepTolerance = 0.2

// sweepClaim checks that the default's PSNR does not fall, beyond
// SweepTolerance, as the rank grows.
func (r *ImageResult) sweepClaim() Verdict {
	v := Verdict{Panel: "image (beyond the paper)",
		Claim:    "a larger rank does not give the default method a worse picture (its penalty and iterations chosen by validation)",
		Expected: fmt.Sprintf("PSNR non-decreasing in the rank, within %g dB", SweepTolerance)}
	v.Holds = true
	best := math.Inf(-1)
	for k, s := range r.Sweep {
		if k > 0 {
			v.Measured += ", "
		}
		v.Measured += fmt.Sprintf("rank %d: %.2f dB", s.Rank, s.PSNR)
		if s.PSNR < best-SweepTolerance {
			v.Holds = false
		}
		best = max(best, s.PSNR)
	}
	return v
}

// WriteJSON stores the study's numbers (the images go in their PNGs).
func (r *ImageResult) WriteJSON(w io.Writer) error { return json.NewEncoder(w).Encode(r) }

// ReadImage restores a study from its JSON and its PNGs, read by open
// (name → contents) in the order of ImageFiles.
func ReadImage(rd io.Reader, open func(name string) ([]byte, error)) (*ImageResult, error) {
	var r ImageResult
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, fmt.Errorf("image study: %w", err)
	}
	if err := r.Config.Validate(); err != nil {
		return nil, err
	}
	var imgs []*image.Gray
	for _, name := range r.ImageFiles() {
		b, err := open(name)
		if err != nil {
			return nil, fmt.Errorf("image study: %w", err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("image study: %s: %w", name, err)
		}
		g, ok := img.(*image.Gray)
		if !ok {
			return nil, fmt.Errorf("image study: %s: not an 8-bit gray image", name)
		}
		imgs = append(imgs, g)
	}
	r.Original, r.Corrupted, r.Recovered = imgs[0], imgs[1], imgs[2:]
	b := r.Original.Bounds()
	r.Width, r.Height = b.Dx(), b.Dy()
	return &r, nil
}
