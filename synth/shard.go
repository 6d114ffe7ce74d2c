package synth

import (
	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/reduce"
	"github.com/scaledsm/scaledsm/ranks"
)

// NewShard draws the ingredients of the shard of a problem that red's rank
// holds in a data-parallel solve (see ranks.Reducer): the measurements
// [rank·m/P, (rank+1)·m/P) of the Gaussian models, the entries of the rows
// [rank·n1/P, (rank+1)·n1/P) of the entry models, each drawn from the
// streams the whole problem draws it from, so that the shards of all the
// ranks make up the problem New draws. Every rank calls it, and then
// Instance, with the same arguments; the instance's Y, Clean, Noise and
// Outlier are the shard's, its FStar, Outliers and truth the whole
// problem's, and its Problem carries red.
func NewShard(c Config, red ranks.Reducer) (*Draw, error) {
	return newDraw(c, red)
}

// Shard returns the range of the draw's shard: measurements of the
// Gaussian models or rows of the entry models, [0, m) or [0, n1) when it is
// the whole problem.
func (d *Draw) Shard() (lo, hi int) { return d.lo, d.hi }

// combine sums s over the ranks of a shard and returns the largest of
// their x; alone it returns x.
func (d *Draw) combine(s *fsum.Sum, x float64) float64 {
	if d.red == nil {
		return x
	}
	reduce.Sums(d.red, s)
	return reduce.Max(d.red, x)
}

// count returns n summed over the ranks of a shard.
func (d *Draw) count(n int) int {
	if d.red == nil {
		return n
	}
	return reduce.Count(d.red, n)
}
