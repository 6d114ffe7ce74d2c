package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/scaledsm/scaledsm"
)

// started is when the command began (run sets it), from which a solve's
// wall time is counted.
var started time.Time

// fitJSON is one of the fits a solve made besides the one it returned
// (scaledsm.Fit).
type fitJSON struct {
	Kind       string   `json:"kind"` // "validation" (on most of the entries) or "not kept"
	Rank       int      `json:"rank"`
	Init       string   `json:"init"` // "spectral", "random" or "convex"
	Trim       string   `json:"init_trim"`
	Ridge      float64  `json:"ridge"`
	Status     string   `json:"status"`
	Iterations int      `json:"iterations"`
	Seconds    float64  `json:"seconds"` // its initialization included
	MsPerIter  *float64 `json:"ms_per_iter,omitempty"`
}

// timingJSON accounts for a solve's every second and every fit: the
// reading or drawing and the first initialization (setup_seconds, in
// runJSON), the call to the library (solve_seconds: the iterations of the
// fit returned, runJSON's seconds, its initialization when the library
// made it, the other fits, and the rest, choosing between them), and what
// follows it, up to the moment the summary is
// written (evaluating and writing); their sum is wall_seconds.
type timingJSON struct {
	InitSeconds   float64   `json:"init_seconds"` // the fit returned's initialization in the library call
	Fits          []fitJSON `json:"fits,omitempty"`
	FitsSeconds   float64   `json:"fits_seconds,omitempty"` // the other fits'
	SolveSeconds  float64   `json:"solve_seconds"`
	FinishSeconds float64   `json:"finish_seconds"`
	WallSeconds   float64   `json:"wall_seconds"`
}

// newTimingJSON returns the fits of res and the library call's time.
func newTimingJSON(res *scaledsm.Result, solve time.Duration) timingJSON {
	t := timingJSON{SolveSeconds: solve.Seconds(), InitSeconds: res.InitRuntime.Seconds()}
	for _, f := range res.Fits {
		j := fitJSON{Kind: "not kept", Rank: f.Rank, Init: f.Start.String(), Trim: f.Trim.String(), Ridge: f.Ridge,
			Status: f.Status.String(), Iterations: f.Iterations, Seconds: f.Runtime.Seconds()}
		if f.Validation {
			j.Kind = "validation"
		}
		if f.Start != scaledsm.SpectralStart {
			j.Trim = "none"
		}
		if f.Iterations > 0 {
			j.MsPerIter = finite(1000 * f.Runtime.Seconds() / float64(f.Iterations))
		}
		t.Fits = append(t.Fits, j)
		t.FitsSeconds += j.Seconds
	}
	return t
}

// stamp sets the wall time to now and the time after the solve to what
// the setup and the solve leave of it.
func (s *summary) stamp() {
	s.WallSeconds = time.Since(s.began).Seconds()
	s.FinishSeconds = max(0, s.WallSeconds-s.SetupSeconds-s.SolveSeconds)
}

// printTime writes the time line: the fit returned, the other fits, the
// setup, what followed the solve, and the whole.
func (s *summary) printTime(w io.Writer) {
	line := fmt.Sprintf("%.3g s solving", s.Seconds)
	if s.MsPerIter != nil {
		line += fmt.Sprintf(", %.3g ms per iteration", *s.MsPerIter)
	}
	if s.InitSeconds >= 0.005 {
		line += fmt.Sprintf(", %.3g s initializing it", s.InitSeconds)
	}
	if n := len(s.Fits); n > 0 {
		line += fmt.Sprintf(" (the fit returned), %.3g s in %d other %s", s.FitsSeconds, n, plural(n, "fit", "fits"))
	}
	if rest := s.SolveSeconds - s.Seconds - s.InitSeconds - s.FitsSeconds; rest >= 0.005 {
		line += fmt.Sprintf(", %.3g s choosing between fits", rest)
	}
	line += fmt.Sprintf("; %.3g s reading or drawing and initializing", s.SetupSeconds)
	if s.WallSeconds > 0 {
		line += fmt.Sprintf("; %.3g s evaluating and writing; %.3g s in all", s.FinishSeconds, s.WallSeconds)
	}
	fmt.Fprintf(w, "time       %s\n", line)
}

// printFits writes the fits line: the fits made besides the one returned,
// the validation fits together and the others each.
func (s *summary) printFits(w io.Writer) {
	if len(s.Fits) == 0 {
		return
	}
	var parts []string
	var ranks []int
	n, its, secs := 0, 0, 0.0
	for _, f := range s.Fits {
		if f.Kind != "validation" {
			continue
		}
		n, its, secs = n+1, its+f.Iterations, secs+f.Seconds
		if !slices.Contains(ranks, f.Rank) {
			ranks = append(ranks, f.Rank)
		}
	}
	if n > 0 {
		parts = append(parts, fmt.Sprintf("%d validation %s on 95%% of the entries (%s %s; %d iterations, %.3g s)",
			n, plural(n, "fit", "fits"), plural(len(ranks), "rank", "ranks"), joinInts(ranks), its, secs))
	}
	for _, f := range s.Fits {
		if f.Kind == "validation" {
			continue
		}
		start := f.Init + " start"
		if f.Init == "spectral" {
			trim, _ := scaledsm.ParseTrim(f.Trim)
			start += " " + trim.Describe()
		}
		if f.Ridge > 0 {
			start += fmt.Sprintf(", penalty %.3g", f.Ridge)
		}
		parts = append(parts, fmt.Sprintf("not kept: rank %d from the %s, %s after %s (%.3g s)",
			f.Rank, start, f.Status, iterations(f.Iterations), f.Seconds))
	}
	fmt.Fprintf(w, "fits       %d besides the one returned: %s\n", len(s.Fits), strings.Join(parts, "; "))
}

// plural returns one or many for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// joinInts returns v as "1, 2, 3".
func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}
