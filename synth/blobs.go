package synth

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
)

// BlobVideo is the shape of a synthetic video for robust PCA whose
// outliers come in moving blobs, as a camera's pedestrians do: an exactly
// rank-2 background (a lit scene and a texture, each frame's brightness and
// texture weight drawn) and Blobs square objects of side 4 to 7 pixels,
// each crossing the frame one pixel a frame (wrapping around), a little
// brighter or darker than what it covers: by 0.05 to 0.6, each pixel of it
// within 20% of that. Small offsets, whole blobs and their persistence at a
// pixel are what make it hard: a fit that keeps a blob's faint border
// bends toward it.
type BlobVideo struct {
	Height, Width, Frames, Blobs int
	Seed                         uint64
}

// Draw returns the video as a (Height·Width) × Frames matrix (pixels in
// row-major order, a frame a column), its background's factors, and which
// entries the blobs cover (row-major).
func (c BlobVideo) Draw() (*mat.Dense, scaledsm.Factors, []bool, error) {
	h, w := c.Height, c.Width
	switch {
	case h < 8 || w < 8 || c.Frames < 2:
		return nil, scaledsm.Factors{}, nil, invalid("video", [2]int{h, w}, "frames must be at least 8×8, and 2 of them")
	case c.Blobs < 0:
		return nil, scaledsm.Factors{}, nil, invalid("blobs", c.Blobs, "must not be negative")
	}
	rng := rand.New(rand.NewPCG(c.Seed, 44))
	n := h * w
	l, r := mat.NewDense(n, 2, nil), mat.NewDense(c.Frames, 2, nil)
	for i := range h {
		for j := range w {
			l.Set(i*w+j, 0, 0.3+0.4*float64(i*j)/float64(n)+0.1*rng.Float64())
			l.Set(i*w+j, 1, 0.1*rng.NormFloat64())
		}
	}
	for f := range c.Frames {
		r.Set(f, 0, 1+0.05*rng.NormFloat64())
		r.Set(f, 1, rng.NormFloat64())
	}
	var x mat.Dense
	x.Mul(l, r.T())
	y := mat.DenseCopyOf(&x)
	covered := make([]bool, n*c.Frames)
	for range c.Blobs {
		s := 4 + rng.IntN(4)
		i0, j0, dir := rng.IntN(h-s), rng.IntN(w-s), 2*rng.IntN(2)-1
		d := (0.05 + 0.55*rng.Float64()) * float64(2*rng.IntN(2)-1)
		for f := range c.Frames {
			at := ((j0+dir*f)%(w-s) + (w - s)) % (w - s)
			for i := i0; i < i0+s; i++ {
				for j := at; j < at+s; j++ {
					k := (i*w+j)*c.Frames + f
					y.RawMatrix().Data[k] = x.RawMatrix().Data[k] + d*(0.8+0.4*rng.Float64())
					covered[k] = true
				}
			}
		}
	}
	return y, scaledsm.Factors{L: l, R: r}, covered, nil
}
