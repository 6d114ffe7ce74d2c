package synth

import (
	"math"
	"math/rand/v2"
	"runtime"

	"github.com/scaledsm/scaledsm/completion"
	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/par"
	"github.com/scaledsm/scaledsm/internal/reduce"
)

// The entry models (matrix completion and robust PCA) follow the paper's
// recipe with the entrywise operator: X* from the same factors, the
// observed set Ω drawn row by row (each entry with probability P, by
// geometric skips, so that no n1×n2 mask is ever formed), and on each
// observed entry an outlier with probability p_s, uniform in
// ±10·max|X*_Ω|, and noise uniform in ±σ_w/m. Each row draws from its own
// streams, so the same seed gives the same bits on any number of cores,
// and an instance regenerates its draws row by row instead of keeping
// them: the memory of a problem is its positions and its observations.

// Streams of the entry models: row i's positions use posStream + i, its
// outliers and noise entryStream + i.
const (
	posStream   = 2 << 32
	entryStream = 3 << 32
)

func (c *Config) validateEntries() error {
	if c.Kind == RobustPCA {
		if c.P != 0 && c.P != 1 {
			return invalid("p", c.P, "robust PCA observes every entry; leave p out or set it to 1")
		}
		c.P = 1
	}
	if !(c.P > 0 && c.P <= 1) {
		return invalid("p", c.P, "the probability that an entry is observed must lie in (0, 1]")
	}
	if float64(c.N1)*float64(c.N2)*c.P > math.MaxInt32*16 {
		return invalid("p", c.P, "about %.3g observed entries is too many to store", float64(c.N1)*float64(c.N2)*c.P)
	}
	return nil
}

// entriesBytes estimates the memory of a problem of the entry models: per
// expected entry a column index and an observation, and a solve's vectors
// (residuals, fits, the truth's fits), and the factors.
func (c *Config) entriesBytes() int64 {
	m := int64(float64(c.N1) * float64(c.N2) * c.P)
	return m*(4+8+3*8) + 8*int64(c.N1+1) + 8*int64(c.N1+c.N2)*int64(c.Rank)*8
}

// drawEntries draws Ω and the singular vectors of X*.
func (d *Draw) drawEntries() error {
	c := &d.Config
	n1, n2 := c.N1, c.N2
	workers := runtime.GOMAXPROCS(0)
	// Twice over the rows: count each row's entries, then write them; the
	// same stream gives the same columns both times.
	// A shard draws its rows [lo, hi) only; the others are empty.
	d.lo, d.hi = 0, n1
	if d.red != nil {
		d.lo, d.hi = reduce.Range(n1, d.red.Rank(), d.red.Size())
	}
	start := make([]int, n1+1)
	par.Do(workers, d.hi-d.lo, func(i int) {
		start[d.lo+i+1] = rowColumns(c.Seed, d.lo+i, n2, c.P, nil)
	})
	for i := range n1 {
		start[i+1] += start[i]
	}
	cols := make([]int32, start[n1])
	par.Do(workers, d.hi-d.lo, func(i int) {
		i += d.lo
		rowColumns(c.Seed, i, n2, c.P, cols[start[i]:start[i+1]])
	})
	op, err := completion.NewEntriesCSR(n1, n2, start, cols)
	if err != nil {
		return err
	}
	c.M = d.count(len(cols))
	d.Op = op
	if d.red != nil {
		if d.Op, err = op.Shard(c.M); err != nil {
			return err
		}
	}
	if d.U, err = orthonormalGaussian(c.Seed, streamU, n1, c.Rank); err != nil {
		return err
	}
	d.V, err = orthonormalGaussian(c.Seed, streamV, n2, c.Rank)
	return err
}

// rowColumns draws the columns of row i observed with probability p, in
// increasing order, into dst when it is not nil, and returns how many.
// The gaps between observed columns are geometric, so the work is that of
// the entries drawn, not of the row.
func rowColumns(seed uint64, i, n2 int, p float64, dst []int32) int {
	if p >= 1 {
		for j := range dst {
			dst[j] = int32(j)
		}
		return n2
	}
	rng := rand.New(rand.NewPCG(seed, posStream+uint64(i)))
	logq := math.Log1p(-p)
	n := 0
	for j := -1; ; {
		// The gap before the next observed column: P(gap = g) = (1-p)^g p.
		u := 1 - rng.Float64() // in (0, 1]
		j += 1 + int(math.Floor(math.Log(u)/logq))
		if j >= n2 || j < 0 {
			return n
		}
		if dst != nil {
			dst[n] = int32(j)
		}
		n++
	}
}

// entriesInstance builds the observations of an entry model's instance.
func (d *Draw) entriesInstance(in *Instance) {
	in.entrySeed, in.entryDraw = d.Seed, true
	op := d.Op.(*completion.Entries)
	start, cols := op.Start(), op.Cols()
	n1, m := d.N1, d.M
	workers := runtime.GOMAXPROCS(0)
	lStar, rStar := in.Star.L.RawMatrix(), in.Star.R.RawMatrix()
	clean := func(i int, j int32) float64 {
		return fsum.Dot(lStar.Data[i*lStar.Stride:i*lStar.Stride+lStar.Cols], rStar.Data[int(j)*rStar.Stride:int(j)*rStar.Stride+rStar.Cols])
	}
	// A(X*) into y, where the observations will be (each entry's clean
	// value is formed once; twice for float32 observations, which cannot
	// hold it), and ||X*_Ω||_∞ and, for the noise, ||X*_Ω||_1, each row's
	// share summed in row order.
	single := d.Precision == Float32
	if single {
		in.Y32 = make([]float32, len(cols))
	} else {
		in.Y = make([]float64, len(cols))
	}
	noisy := !math.IsInf(in.SNR, 1)
	rowMax, rowSum := make([]float64, n1), make([]float64, n1)
	par.Do(workers, n1, func(i int) {
		var s fsum.Sum
		for k := start[i]; k < start[i+1]; k++ {
			x := clean(i, cols[k])
			if !single {
				in.Y[k] = x
			}
			v := math.Abs(x)
			rowMax[i] = max(rowMax[i], v)
			if noisy {
				s.Add(v)
			}
		}
		rowSum[i] = s.Value()
	})
	var linf float64
	var l1 fsum.Sum // summed as fsum.Of(rowSum), the rows of other ranks being empty
	for i, v := range rowMax {
		linf = max(linf, v)
		l1.Add(rowSum[i])
	}
	linf = d.combine(&l1, linf)
	sigmaW := 0.0
	if noisy {
		// SNR = 20 log10(||A(X*)||_1 / σ_w); w uniform in [-σ_w/m, σ_w/m].
		sigmaW = l1.Value() / math.Pow(10, in.SNR/20) / float64(m)
	}
	rowOut := make([]int, n1)
	par.Do(workers, n1, func(i int) {
		rng := rand.New(rand.NewPCG(d.Seed, entryStream+uint64(i)))
		var f fsum.Sum
		for k := start[i]; k < start[i+1]; k++ {
			support, sign, noise := rng.Float64(), 2*rng.Float64()-1, 2*rng.Float64()-1
			var x float64 // the clean value
			if single {
				x = clean(i, cols[k])
			} else {
				x = in.Y[k] // from above
			}
			var s float64
			if support < in.PS {
				s = 10 * linf * sign
				rowOut[i]++
			}
			// y = (A(X*) + s) + w, in the order of the Gaussian models.
			y := x + s + sigmaW*noise
			if single {
				in.Y32[k] = float32(y)
				y = float64(in.Y32[k])
			} else {
				in.Y[k] = y
			}
			f.Add(math.Abs(x - y))
		}
		rowSum[i] = f.Value()
	})
	var fStar fsum.Sum
	for i := range n1 {
		in.Outliers += rowOut[i]
		fStar.Add(rowSum[i])
	}
	in.Outliers = d.count(in.Outliers)
	d.combine(&fStar, 0)
	in.FStar = fStar.Value()
}

// entryCorrupted returns an entry model's outlier mask, drawing each row's
// support as entriesInstance did.
func (in *Instance) entryCorrupted() []bool {
	op := in.Op.(*completion.Entries)
	start := op.Start()
	mask := make([]bool, len(op.Cols()))
	par.Do(runtime.GOMAXPROCS(0), len(start)-1, func(i int) {
		rng := rand.New(rand.NewPCG(in.entrySeed, entryStream+uint64(i)))
		for k := start[i]; k < start[i+1]; k++ {
			support := rng.Float64()
			rng.Float64() // the sign
			rng.Float64() // the noise
			mask[k] = support < in.PS
		}
	})
	return mask
}
