// Package parse reads the solver's settings as the command line spells
// them, each the inverse of its type's String: the command line, its
// Python twin and the reports read them back.
package parse

import (
	"fmt"
	"strconv"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/inputerr"
)

// Method returns the method named s: "scaledsm", "vanillasm", "scaledgd"
// or "gd".
func Method(s string) (scaledsm.Method, error) {
	for _, m := range []scaledsm.Method{scaledsm.ScaledSM, scaledsm.VanillaSM, scaledsm.ScaledGD, scaledsm.GD} {
		if s == m.String() {
			return m, nil
		}
	}
	return 0, fmt.Errorf("unknown method %q (want scaledsm, vanillasm, scaledgd or gd)", s)
}

// Loss returns the standard loss named s: "l1", "l2" or "l2sq".
func Loss(s string) (scaledsm.Standard, error) {
	for _, l := range []scaledsm.Standard{scaledsm.L1, scaledsm.L2, scaledsm.L2Squared} {
		if s == l.String() {
			return l, nil
		}
	}
	return 0, fmt.Errorf("unknown loss %q (want l1, l2 or l2sq)", s)
}

// Start returns the initialization named s: "spectral", "random" or
// "convex".
func Start(s string) (scaledsm.Start, error) {
	for _, st := range []scaledsm.Start{scaledsm.SpectralStart, scaledsm.RandomStart, scaledsm.ConvexStart} {
		if s == st.String() {
			return st, nil
		}
	}
	return 0, inputerr.New("init", s, "want spectral, random or convex")
}

// Damping returns the damping named s: "auto" (the zero value), "none",
// or a fixed λ > 0.
func Damping(s string) (scaledsm.Damping, error) {
	switch s {
	case "auto":
		return scaledsm.Damping{}, nil
	case "none":
		return scaledsm.Damping{None: true}, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return scaledsm.Damping{}, inputerr.New("damping", s, "want auto, none, or a fixed λ > 0")
	}
	if v == 0 {
		return scaledsm.Damping{None: true}, nil // λ = 0 is no damping, not the zero value's automatic one
	}
	d := scaledsm.Damping{Fixed: v}
	return d, scaledsm.Settings{Damping: d}.Validate()
}

// Truncation returns the truncation named s: "median", "none", or a
// fraction in [0, 0.5) (as scaledsm.TruncateFraction).
func Truncation(s string) (scaledsm.Truncation, error) {
	switch s {
	case "median":
		return scaledsm.Truncation{}, nil
	case "none":
		return scaledsm.Truncation{None: true}, nil
	}
	p, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return scaledsm.Truncation{}, inputerr.New("trim", s, "want median, none, or a fraction in [0, 0.5)")
	}
	t := scaledsm.TruncateFraction(p)
	return t, scaledsm.Settings{Truncation: t}.Validate()
}
