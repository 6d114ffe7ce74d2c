package background

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"
)

// BenchmarkTrack320x240 applies frames of 320 × 240 to a learned
// Subtractor (the learning aside) and reports the frames a second.
func BenchmarkTrack320x240(b *testing.B) {
	w, h := 320, 240
	rng := rand.New(rand.NewPCG(1, 2))
	bg := make([]uint8, w*h)
	for p := range bg {
		bg[p] = uint8(60 + rng.IntN(120))
	}
	frame := func(t int) []uint8 {
		f := make([]uint8, w*h)
		for p := range f {
			f[p] = uint8(int(bg[p]) + rng.IntN(5) - 2)
		}
		for y := 100; y < 140; y++ { // a moving square
			for x := (t * 3) % (w - 40); x < (t*3)%(w-40)+40; x++ {
				f[y*w+x] = 250
			}
		}
		return f
	}
	sub, err := New(w, h, Settings{Learn: 20})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	none := func(int, []uint8) error { return nil }
	for t := range 20 {
		if err := sub.Apply(ctx, frame(t), none); err != nil {
			b.Fatal(err)
		}
	}
	frames := make([][]uint8, 64)
	for t := range frames {
		frames[t] = frame(t)
	}
	b.ResetTimer()
	begin := time.Now()
	n := 0
	for b.Loop() {
		if err := sub.Apply(ctx, frames[n%64], none); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(n)/time.Since(begin).Seconds(), "frames/s")
}
