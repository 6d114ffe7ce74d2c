// Package gamma draws Gamma variates: by rejection (Marsaglia and Tsang),
// and from a table of the quantile function, a few nanoseconds a draw, for
// loops that draw one per datum.
package gamma

import (
	"math"
	"math/rand/v2"
	"sync"

	"gonum.org/v1/gonum/mathext"
)

// Draw returns a draw of the Gamma distribution of shape a > 0 and rate
// 1 (Marsaglia and Tsang, "A simple method for generating gamma
// variables", ACM TOMS 26, 2000; for a < 1, Gamma(a+1)·U^(1/a)).
func Draw(rng *rand.Rand, a float64) float64 {
	if a < 1 {
		u := rng.Float64()
		for u == 0 {
			u = rng.Float64()
		}
		return Draw(rng, a+1) * math.Pow(u, 1/a)
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

// cells is the number of cells of a Table.
const cells = 1024

// Table draws Gamma(a, 1) variates by the inverse of their distribution
// function from 64 random bits: the quantiles at the ends of 1024 cells of
// probability, interpolated linearly in a cell (an error below 1e-5 of a
// draw in every cell but the last), and in the last cell, where the
// quantile grows without bound, the quantile of the upper tail's
// probability p from a second table in log₂ p (tailSteps a halving, an
// error below 1e-7 of a draw). A draw costs a few nanoseconds where
// Draw's rejection costs about 30 (and the tail's exact inverse, one draw
// in 1024, over a microsecond).
type Table struct {
	a    float64
	q    [cells + 1]float64
	tail []float64 // the quantile at upper-tail probability 2^-(10 + j/tailSteps)
}

// tailSteps is the number of the tail table's points a halving of the
// probability, from 2^-10 (the last cell's start) to 2^-63 (its last
// draw's).
const tailSteps = 64

// tables holds a table per shape (a *made), made once (20 ms, most of it
// the tail's).
var tables sync.Map

// made is a shape's table, made by the first of TableOf and Prepare to
// ask for it; the others wait for it.
type made struct {
	once sync.Once
	g    *Table
}

// entry returns the shape's entry in tables.
func entry(a float64) *made {
	if e, ok := tables.Load(a); ok {
		return e.(*made)
	}
	e, _ := tables.LoadOrStore(a, &made{})
	return e.(*made)
}

// TableOf returns the table of shape a > 0, waiting for it when Prepare
// is making it.
func TableOf(a float64) *Table {
	e := entry(a)
	e.once.Do(func() { e.g = newTable(a) })
	return e.g
}

// Prepare starts making the table of shape a > 0 in the background, for
// a caller that knows the shape before it has the work that draws from
// it: the 20 ms it takes then run beside that work (reading a file, on
// one core), and TableOf, called later, waits only for what is left.
func Prepare(a float64) {
	e := entry(a)
	go e.once.Do(func() { e.g = newTable(a) })
}

// newTable makes the table of shape a.
func newTable(a float64) *Table {
	g := &Table{a: a}
	for i := 1; i < cells; i++ {
		g.q[i] = mathext.GammaIncRegInv(a, float64(i)/cells)
	}
	g.tail = make([]float64, 53*tailSteps+1)
	for j := range g.tail {
		g.tail[j] = mathext.GammaIncRegCompInv(a, math.Exp2(-10-float64(j)/tailSteps))
	}
	g.tail[0] = g.q[cells-1] // the same point, so that the draws do not step there
	return g
}

// Draw returns the draw of the random bits.
func (g *Table) Draw(bits uint64) float64 {
	if v, ok := g.Body(bits); ok {
		return v
	}
	return g.Tail(bits)
}

// Body returns the draw of the bits and true, unless they fall in the last
// cell: then Tail is their draw. It is Draw for loops that want its
// common case inlined.
func (g *Table) Body(bits uint64) (float64, bool) {
	i := bits >> 54
	if i == cells-1 {
		return 0, false
	}
	q := g.q[i : i+2]
	return q[0] + float64(bits&(1<<53-1))*0x1p-53*(q[1]-q[0]), true // bit 53 unused
}

// Tail returns the draw of bits in the last cell: at the fraction f of the
// cell, the quantile of the upper tail's probability (1-f)/cells,
// interpolated linearly in log₂ of it.
func (g *Table) Tail(bits uint64) float64 {
	f := float64(bits&(1<<53-1)) * 0x1p-53
	x := (-math.Log2((1-f)/cells) - 10) * tailSteps // in [0, 53·tailSteps]
	j := min(int(x), len(g.tail)-2)
	return g.tail[j] + (x-float64(j))*(g.tail[j+1]-g.tail[j])
}
