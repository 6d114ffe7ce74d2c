// Package fsum adds floating-point numbers with Neumaier's compensated
// summation, whose error does not grow with the number of terms: the
// computed sum of x_1, ..., x_n is within 2ε|s| + O(nε²)Σ|x_i| of the exact
// sum s, against (n-1)ε Σ|x_i| for a plain loop. Losses and the optimal
// value f(X*) are such sums, and the Polyak step differences them: with a
// plain loop the difference loses its last digits once it is small next to
// the sums (Neumaier, "Rundungsfehleranalyse einiger Verfahren zur
// Summation endlicher Summen", ZAMM 54, 1974).
//
// The terms are added in the order given, so a sum has the same bits
// however the caller's work is split among cores, as long as the order of
// the terms is fixed.
package fsum

import "math"

// Sum is a running compensated sum; the zero value is an empty sum.
type Sum struct {
	s, c float64 // the sum and the compensation of its rounding errors
}

// Add adds x to the sum. The rounding error of each addition is formed
// by Knuth's TwoSum, without a branch: the error is exact, so it is the
// one Neumaier's branch on |s| >= |x| forms (the same bits), without the
// branch's mispredictions, which cost a sum of terms of random signs
// about half its time.
func (a *Sum) Add(x float64) { *a = a.Plus(x) }

// Plus returns the sum with x added, the same bits as Add: a loop that
// keeps its sum in a variable (s = s.Plus(x)) keeps it in registers,
// where Add's pointer holds it in memory.
func (a Sum) Plus(x float64) Sum {
	t := a.s + x
	z := t - a.s
	return Sum{t, a.c + ((a.s - (t - z)) + (x - z))}
}

// Value returns the sum.
func (a Sum) Value() float64 { return a.s + a.c }

// Of returns the compensated sum of v.
func Of(v []float64) float64 {
	var a Sum
	for _, x := range v {
		a.Add(x)
	}
	return a.Value()
}

// Abs returns the compensated sum of |v_i|.
func Abs(v []float64) float64 {
	var a Sum
	for _, x := range v {
		a.Add(math.Abs(x))
	}
	return a.Value()
}

// Norm returns the Euclidean norm of v, its squares summed with
// compensation after scaling by the largest magnitude, so that they neither
// overflow nor underflow.
func Norm(v []float64) float64 {
	var scale float64
	for _, x := range v {
		scale = max(scale, math.Abs(x))
	}
	if scale == 0 || math.IsInf(scale, 0) || math.IsNaN(scale) {
		return scale
	}
	var a Sum
	for _, x := range v {
		y := x / scale
		a.Add(y * y)
	}
	return scale * math.Sqrt(a.Value())
}

// Dot returns the compensated sum of x_i y_i, the products rounded as they
// are formed.
func Dot(x, y []float64) float64 {
	var a Sum
	for i, v := range x {
		a.Add(v * y[i])
	}
	return a.Value()
}

// Parts returns the running sum and its compensation, whose sum is Value:
// what a process sends so that another can add its sum to others without
// losing the compensation (see AddParts).
func (a Sum) Parts() (s, c float64) { return a.s, a.c }

// Resume returns the sum whose parts (see Parts) are s and c: a sum
// carried on from where another process left it, with the same bits as
// if one process had added every term.
func Resume(s, c float64) Sum { return Sum{s, c} }

// AddParts adds a sum given by its parts (see Parts): its running sum, then
// its compensation, as two terms.
func (a *Sum) AddParts(s, c float64) {
	a.Add(s)
	a.Add(c)
}
