package scaledsm

import (
	"fmt"
	"math"
)

// Loss is the penalty on the residuals z = A(X) - y that a method minimizes.
type Loss int

const (
	// L1 is the least absolute deviations ||z||_1, the paper's loss: robust
	// to outliers, nonsmooth.
	L1 Loss = iota
	// L2 is the nonsmooth l2 loss ||z||_2 of the paper's remark on ScaledGD;
	// its subgradient is A*(z)/||z||_2.
	L2
	// L2Squared is the smooth least-squares loss ||z||_2²/2 minimized by GD
	// and ScaledGD.
	L2Squared
)

var lossNames = [...]string{L1: "l1", L2: "l2", L2Squared: "l2sq"}

// String returns the loss's name as the command line spells it.
func (l Loss) String() string {
	if l >= 0 && int(l) < len(lossNames) {
		return lossNames[l]
	}
	return fmt.Sprintf("Loss(%d)", int(l))
}

// ParseLoss returns the loss named s: "l1", "l2" or "l2sq".
func ParseLoss(s string) (Loss, error) {
	for l, name := range lossNames {
		if s == name {
			return Loss(l), nil
		}
	}
	return 0, fmt.Errorf("unknown loss %q (want l1, l2 or l2sq)", s)
}

func (l Loss) valid() bool { return l >= L1 && l <= L2Squared }

// weight returns how the operator weighs residuals for this loss.
func (l Loss) weight() Weight {
	if l == L1 {
		return SignWeight
	}
	return LinearWeight
}

// Value returns the loss of the residuals z.
func (l Loss) Value(z []float64) float64 {
	var s float64
	switch l {
	case L1:
		for _, v := range z {
			s += math.Abs(v)
		}
	case L2:
		return l2norm(z)
	case L2Squared:
		for _, v := range z {
			s += v * v
		}
		s /= 2
	default:
		return math.NaN()
	}
	return s
}

// gradientScale returns the factor by which the operator's weighted adjoint
// must be multiplied to give this loss's subgradient at residuals z whose
// loss is value.
func (l Loss) gradientScale(value float64) float64 {
	if l == L2 {
		if value == 0 {
			return 0
		}
		return 1 / value
	}
	return 1
}

// l2norm returns ||v||_2 without overflow or underflow in the squares.
func l2norm(v []float64) float64 {
	var scale, ssq float64 = 0, 1
	for _, x := range v {
		if x == 0 {
			continue
		}
		a := math.Abs(x)
		if scale < a {
			ssq = 1 + ssq*(scale/a)*(scale/a)
			scale = a
		} else {
			ssq += (a / scale) * (a / scale)
		}
	}
	return scale * math.Sqrt(ssq)
}
