package experiment

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/scaledsm/scaledsm"
)

// TestAstronautAutoRank is the photograph study at AutoRank: half the
// pixels seen, 10% of those salt and pepper, the rank chosen by validation.
// It takes about a minute; it runs when SCALEDSM_LONG is set.
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
	op, y, _ := scaledsm.NewEntries(h, w, rows, cols, vals)
	p := scaledsm.Problem{Op: op, Y: y, Rank: scaledsm.AutoRank}
	s := scaledsm.DefaultSettings(op)
	s.MaxIter = 2000
	t0 := time.Now()
	r, err := scaledsm.Solve(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	x := r.Factors.Product()
	rec := make([]float64, w*h)
	for i := range h {
		for j := range w {
			rec[i*w+j] = min(max(x.At(i, j), 0), 1)
		}
	}
	c := r.RankChoice
	t.Logf("ranks %v, validation %.4g: chose %d; %v after %d (%.1f s in all), PSNR %.2f dB",
		c.Ranks, c.Errors, c.Rank, r.Status, r.Iterations, time.Since(t0).Seconds(), psnr(rec, orig))
	if c.Rank >= c.Ranks[len(c.Ranks)-1] || psnr(rec, orig) < 20.5 {
		t.Errorf("chose rank %d at %.2f dB", c.Rank, psnr(rec, orig))
	}
}
