package experiment

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/completion"
)

// TestAstronautAutoRank is the photograph study at AutoRank: half the
// pixels seen, 10% of those salt and pepper. Validation chooses a rank
// below the largest it tried, and AutoRank's picture, fitted with the
// penalty at the largest rank the pixels support, is within 0.2 dB of a
// fixed rank 50's (with its own penalty) or better. It takes about five minutes; it runs
// when SCALEDSM_LONG is set.
func TestAstronautAutoRank(t *testing.T) {
	if os.Getenv("SCALEDSM_LONG") == "" {
		t.Skip("set SCALEDSM_LONG=1 to run the photograph at --rank auto (about a minute)")
	}
	orig, w, h, _ := Astronaut()
	rng := rand.New(rand.NewPCG(1, 0x1a6e))
	var rows, cols []int32
	var vals []float64
	for i := range h {
		for j := range w {
			if rng.Float64() >= 0.5 {
				continue
			}
			v := orig[i*w+j]
			if rng.Float64() < 0.1 {
				v = float64(rng.IntN(2))
			}
			rows, cols, vals = append(rows, int32(i)), append(cols, int32(j)), append(vals, v)
		}
	}
	op, y, _ := completion.NewEntries(h, w, rows, cols, vals)
	s := completion.DefaultSettings()
	s.MaxIter = 2000
	// fit solves at rank r and returns the result and its PSNR, the
	// recovered image clipped to [0, 1].
	fit := func(r int) (*completion.Result, float64) {
		res, err := completion.Solve(context.Background(), scaledsm.Problem{Op: op, Y: y, Rank: r}, s)
		if err != nil {
			t.Fatal(err)
		}
		x := res.Factors.Product()
		rec := make([]float64, w*h)
		for i := range h {
			for j := range w {
				rec[i*w+j] = min(max(x.At(i, j), 0), 1)
			}
		}
		return res, psnr(rec, orig)
	}
	t0 := time.Now()
	r, auto := fit(scaledsm.AutoRank)
	c := r.RankChoice
	t.Logf("ranks %v, validation %.4g: chose %d, fitted %d; %v after %d (%.1f s in all), PSNR %.2f dB",
		c.Ranks, c.Errors, c.Rank, r.Factors.Rank(), r.Status, r.Iterations, time.Since(t0).Seconds(), auto)
	r50, fixed := fit(50)
	t.Logf("rank 50: %v after %d, PSNR %.2f dB", r50.Status, r50.Iterations, fixed)
	if c.Rank >= c.Ranks[len(c.Ranks)-1] || auto < fixed-0.2 {
		t.Errorf("chose rank %d at %.2f dB; rank 50 gives %.2f dB", c.Rank, auto, fixed)
	}
}
