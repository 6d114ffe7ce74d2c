package main

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/scaledsm/scaledsm"
)

// progress draws a one-line progress bar of a solve on a terminal: the
// iteration, the loss, the relative error or change, and the time left,
// at most five times a second.
type progress struct {
	w        io.Writer
	maxIter  int
	tol      float64
	start    time.Time
	last     time.Time
	drawn    bool
	firstErr float64 // the error (or change) the time left is measured from
}

// progressEvery is the shortest time between two redraws.
const progressEvery = 200 * time.Millisecond

// newProgress returns the progress bar of a solve with these settings, or
// nil when w is not a terminal.
func newProgress(w io.Writer, s scaledsm.Settings) *progress {
	if !isTerminal(w) {
		return nil
	}
	return &progress{w: w, maxIter: s.MaxIter, tol: s.Tol, start: time.Now(), firstErr: math.NaN()}
}

// record is the solve's Recorder.
func (p *progress) record(it scaledsm.Iteration) {
	now := time.Now()
	e := it.RelError
	what := "error"
	if math.IsNaN(e) {
		e, what = it.Change, "change"
	}
	if math.IsNaN(p.firstErr) && e > 0 {
		p.firstErr = e
	}
	if now.Sub(p.last) < progressEvery {
		return
	}
	p.last = now
	elapsed := now.Sub(p.start).Seconds()
	per := elapsed / float64(it.Iter+1)
	// The iterations left at the rate of decrease so far, and at most the
	// iteration limit.
	left := float64(p.maxIter - it.Iter)
	if e > 0 && p.tol > 0 && p.firstErr > e && it.Iter > 0 {
		rate := math.Log(e/p.firstErr) / float64(it.Iter)
		left = min(left, math.Log(p.tol/e)/rate)
	}
	width := 20
	done := min(width, max(0, int(float64(width)*float64(it.Iter)/float64(p.maxIter))))
	if e > 0 && p.tol > 0 && p.firstErr > p.tol {
		// Progress on a log scale from the first error to the tolerance.
		frac := math.Log(p.firstErr/e) / math.Log(p.firstErr/p.tol)
		done = max(done, min(width, max(0, int(float64(width)*frac))))
	}
	bar := make([]byte, width)
	for k := range bar {
		bar[k] = '.'
		if k < done {
			bar[k] = '#'
		}
	}
	fmt.Fprintf(p.w, "\r\033[K[%s] iteration %d/%d  loss %.4g  %s %.3g  %.0fs, about %.0fs left",
		bar, it.Iter, p.maxIter, it.Loss, what, e, elapsed, max(0, left*per))
	p.drawn = true
}

// clear erases the bar once the solve is over.
func (p *progress) clear() {
	if p != nil && p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
