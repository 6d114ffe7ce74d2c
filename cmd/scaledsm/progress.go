package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/scaledsm/scaledsm/internal/experiment"
)

// progressBar draws the runs and iterations done on one line of stderr,
// at most ten times a second, and only when stderr is a terminal.
type progressBar struct {
	w     io.Writer // nil when quiet
	label string
	start time.Time

	mu    sync.Mutex
	last  time.Time
	p     experiment.Progress
	shown bool
}

// newProgressBar returns a bar on w, quiet unless w is a terminal.
func newProgressBar(w io.Writer, label string) *progressBar {
	b := &progressBar{label: label, start: time.Now()}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		b.w = w
	}
	return b
}

// update records the work done and redraws the bar if it is time to.
func (b *progressBar) update(p experiment.Progress) {
	if b.w == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.p = p
	if now := time.Now(); now.Sub(b.last) >= 100*time.Millisecond || p.RunsDone == p.Runs {
		b.last = now
		b.draw()
	}
}

// draw draws the bar: filled in proportion to the iterations done out of
// the most the figure can still take, then the runs done and the
// iterations done.
func (b *progressBar) draw() {
	const width = 30
	fill := 0
	if b.p.Bound > 0 {
		fill = min(width, width*b.p.Iterations/b.p.Bound)
	}
	fmt.Fprintf(b.w, "\r%s [%s%s] %d/%d runs, %d iterations, %s ", b.label,
		strings.Repeat("#", fill), strings.Repeat("-", width-fill),
		b.p.RunsDone, b.p.Runs, b.p.Iterations, time.Since(b.start).Round(time.Second))
	b.shown = true
}

// show draws a line of free text in the bar's place, at most ten times a
// second.
func (b *progressBar) show(format string, args ...any) {
	if b.w == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if now := time.Now(); now.Sub(b.last) >= 100*time.Millisecond {
		b.last = now
		fmt.Fprintf(b.w, "\r\033[K"+format, args...)
		b.shown = true
	}
}

// done clears the bar's line.
func (b *progressBar) done() {
	if b.w == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.shown {
		fmt.Fprint(b.w, "\r\033[K")
	}
}
