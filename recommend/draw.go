package recommend

import (
	"math"
	"math/rand/v2"
)

// Every draw of a fit comes from a stream of its own, named by the fit's
// seed, the sweep, the kind of draw and the row it is for, so that a fit
// gives the same bits whatever the number of cores or the order in which
// they take the rows.
const (
	streamUser = iota + 1
	streamItem
	streamWeights
	streamHyperUser
	streamHyperItem
	streamNoise
	streamSplit
	streamStart
)

// stream is a reusable source of draws; seed points it at a stream.
type stream struct {
	pcg *rand.PCG
	rng *rand.Rand
}

func newStream() *stream {
	pcg := rand.NewPCG(0, 0)
	return &stream{pcg: pcg, rng: rand.New(pcg)}
}

// seed points s at the stream of (seed, sweep, kind, row).
func (s *stream) seed(seed uint64, sweep, kind, row int) {
	s.pcg.Seed(seed, mix(uint64(sweep)<<40^uint64(kind)<<32^uint64(row)))
}

// mix is SplitMix64's finalizer: distinct inputs give unrelated outputs.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// gamma returns a draw of the Gamma distribution of shape a > 0 and rate
// 1 (Marsaglia and Tsang, "A simple method for generating gamma
// variables", ACM TOMS 26, 2000; for a < 1, Gamma(a+1)·U^(1/a)).
func gamma(rng *rand.Rand, a float64) float64 {
	if a < 1 {
		u := rng.Float64()
		for u == 0 {
			u = rng.Float64()
		}
		return gamma(rng, a+1) * math.Pow(u, 1/a)
	}
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}
