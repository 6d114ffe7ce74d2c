package recommend

import (
	"math/rand/v2"
)

// Every draw of a fit comes from a stream of its own, named by the fit's
// seed, the sweep, the kind of draw and the row it is for, so that a fit
// gives the same bits whatever the number of cores or the order in which
// they take the rows.
const (
	streamUser = iota + 1
	streamItem
	_ // the weights' stream before they were drawn as rows are made: kept so that the others keep their numbers
	streamHyperUser
	streamHyperItem
	streamNoise
	streamSplit
	streamStart
	streamGrow
	streamLists
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

// splitMixStep is the increment of SplitMix64's counter.
const splitMixStep = 0x9e3779b97f4a7c15

// mix is SplitMix64's finalizer: distinct inputs give unrelated outputs.
func mix(x uint64) uint64 {
	x += splitMixStep
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
