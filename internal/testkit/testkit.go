// Package testkit holds what the tests of several packages draw alike.
package testkit

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Gaussian returns an r×c matrix of independent N(0, scale²) entries,
// drawn row by row from rng.
func Gaussian(rng *rand.Rand, r, c int, scale float64) *mat.Dense {
	m := mat.NewDense(r, c, nil)
	for i := range r {
		for j := range c {
			m.Set(i, j, scale*rng.NormFloat64())
		}
	}
	return m
}
