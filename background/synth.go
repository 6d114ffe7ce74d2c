package background

import (
	"math"
	"math/rand/v2"
)

// A Synthetic is a video whose foreground is known: a textured still
// background under a light that brightens and dims by up to Light (a
// fraction) over a slow cycle, a few bright and dark rectangles crossing it
// at constant speeds, and noise of Noise gray levels' deviation on every
// pixel. It makes its frames on demand, so that a test may run a long video
// in little memory, and the same frames for the same seed.
type Synthetic struct {
	Width, Height int
	Light         float64 // the illumination's amplitude, as a fraction of the brightness
	Period        int     // frames of a cycle of the light
	Noise         float64 // gray levels
	Objects       int
	Seed          uint64

	base []float64
	objs []synthObject
}

type synthObject struct {
	x, y, vx, vy, w, h, level float64
}

// NewSynthetic returns a width × height Synthetic with n objects, light
// varying by 20% over 400 frames, and noise of 2 gray levels.
func NewSynthetic(width, height, n int, seed uint64) *Synthetic {
	s := &Synthetic{Width: width, Height: height, Light: 0.2, Period: 400, Noise: 2, Objects: n, Seed: seed}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	s.base = make([]float64, width*height)
	// A smooth gradient and a texture of blocks, in [50, 170].
	for y := range height {
		for x := range width {
			s.base[y*width+x] = 70 + 60*float64(x)/float64(width) + 20*float64(y)/float64(height)
		}
	}
	for range width * height / 64 {
		bx, by := rng.IntN(width), rng.IntN(height)
		d := rng.Float64()*30 - 15
		for y := by; y < min(height, by+4); y++ {
			for x := bx; x < min(width, bx+4); x++ {
				s.base[y*width+x] += d
			}
		}
	}
	for range n {
		w, h := float64(width)*(0.08+0.08*rng.Float64()), float64(height)*(0.08+0.1*rng.Float64())
		level := 230 + 20*rng.Float64()
		if rng.IntN(2) == 0 {
			level = 10 + 20*rng.Float64()
		}
		speed := 0.5 + 2*rng.Float64()
		angle := 2 * math.Pi * rng.Float64()
		s.objs = append(s.objs, synthObject{x: rng.Float64() * float64(width), y: rng.Float64() * float64(height),
			vx: speed * math.Cos(angle), vy: speed * math.Sin(angle), w: w, h: h, level: level})
	}
	return s
}

// object returns object o's rectangle in frame t, [x0, x1) × [y0, y1): it
// wraps around the frame's edges (and may be cut by them).
func (s *Synthetic) object(o synthObject, t int) (x0, y0, x1, y1 int) {
	span := func(p, v, size float64, n int) (int, int) {
		period := float64(n) + size
		q := math.Mod(p+v*float64(t), period)
		if q < 0 {
			q += period
		}
		lo := int(math.Round(q - size))
		return max(0, lo), min(n, int(math.Round(q)))
	}
	x0, x1 = span(o.x, o.vx, o.w, s.Width)
	y0, y1 = span(o.y, o.vy, o.h, s.Height)
	return
}

// Frame writes frame t's gray values into frame and its foreground (0 or
// 255) into mask, each Width × Height, row by row; mask may be nil.
func (s *Synthetic) Frame(t int, frame, mask []uint8) {
	rng := rand.New(rand.NewPCG(s.Seed, uint64(t)+1))
	light := 1 + s.Light*math.Sin(2*math.Pi*float64(t)/float64(max(1, s.Period)))
	if mask != nil {
		clear(mask)
	}
	value := make([]float64, len(s.base))
	for p, v := range s.base {
		value[p] = light * v
	}
	for _, o := range s.objs {
		x0, y0, x1, y1 := s.object(o, t)
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				value[y*s.Width+x] = o.level
				if mask != nil {
					mask[y*s.Width+x] = 255
				}
			}
		}
	}
	for p, v := range value {
		frame[p] = uint8(min(255, max(0, math.Round(v+s.Noise*rng.NormFloat64()))))
	}
}
