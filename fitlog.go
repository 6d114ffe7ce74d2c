package scaledsm

import (
	"context"
	"sync"
	"time"
)

// A Fit is one fit that Solve made besides the one it returned: a
// validation fit of most of the entries, scored on those held out (the
// ranks of AutoRank, the penalties of AutoRidge), or a fit of all of them
// that a later one replaced or that was not kept (a start whose fit was
// not exact, a later start that did no better, the unpenalized fit that a
// validated one replaced). Result.Fits lists them in the order made, so
// that a run's every iteration and second is accounted for.
type Fit struct {
	Validation bool       // a fit of most of the entries, scored on the others
	Rank       int        // the rank fitted
	Start      Start      // the initialization
	Truncation Truncation // its truncation, for SpectralStart
	Ridge      float64    // the penalty (Settings.Ridge)
	Status     Status
	Iterations int
	// Runtime is the fit's wall time, its initialization included (that
	// of the fit returned is not in Result.Runtime's, which counts the
	// iterations).
	Runtime time.Duration
}

// fitLog collects the fits of one Solve: their records, and for each the
// fit it is part of (itself, or the fit that continued it, see absorb), by
// the index a Result keeps (Result.fit), not by pointer: a pointer into a
// finished run would keep the whole run alive, its operator's scratch and
// its buffers, for as long as the log (ten validation fits at 10^7 entries
// held 2.7 GB so).
type fitLog struct {
	mu   sync.Mutex
	fits []Fit
	part []int // the fit each record is part of, its own index for most
}

// A pipeline is one Solve as its stages run (see solve): the log of the
// fits it makes, nil when none is kept (ChooseRank or ChooseRidge called
// alone), and whether the fits it makes now are validation fits. Every
// stage takes it and passes it on; none calls Solve.
type pipeline struct {
	log        *fitLog
	validation bool
}

// validating returns the pipeline whose fits are validation fits.
func (pl pipeline) validating() pipeline {
	pl.validation = true
	return pl
}

// record logs the fit res of p with the settings s, which took wall time
// d.
func (pl pipeline) record(res *Result, p Problem, s Settings, d time.Duration) {
	if pl.log == nil {
		return
	}
	f := Fit{Validation: pl.validation, Rank: p.Rank, Start: s.Start, Truncation: s.Truncation, Ridge: s.Ridge,
		Status: res.Status, Iterations: res.Iterations, Runtime: d}
	if s.Init != nil && s.Start == SpectralStart {
		f.Truncation = s.Truncation // a start computed ahead by the caller, as it names it
	}
	log := pl.log
	log.mu.Lock()
	defer log.mu.Unlock()
	res.fit = len(log.fits) + 1
	log.fits = append(log.fits, f)
	log.part = append(log.part, res.fit)
}

// absorb counts the fit from as part of into, which continues it and
// adds its iterations and time to its own (AutoRank's polish).
func (pl pipeline) absorb(into, from *Result) {
	log := pl.log
	if log == nil {
		return
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	for k, p := range log.part {
		if p == from.fit {
			log.part[k] = into.fit
		}
	}
}

// others returns the fits of the log but res, the one returned.
func (log *fitLog) others(res *Result) []Fit {
	log.mu.Lock()
	defer log.mu.Unlock()
	var fits []Fit
	for k, f := range log.fits {
		if res.fit == 0 || log.part[k] != res.fit {
			fits = append(fits, f)
		}
	}
	return fits
}

// fit makes one fit of p with the settings s from its initialization and
// records it. Each, when not nil, sees the run at every iteration once its
// pass is made, before it advances.
func (pl pipeline) fit(ctx context.Context, p Problem, s Settings, each func(*run)) (*Result, error) {
	t0 := time.Now()
	u, err := start(ctx, p, s)
	if err != nil {
		return nil, err
	}
	u.start = time.Now() // the iterations' time, apart from the start's
	u.res.InitRuntime = u.start.Sub(t0)
	u.runOut(ctx, each)
	u.res.TrimFloor = trimFloorOf(s)
	pl.record(&u.res, p, u.s, time.Since(t0))
	return &u.res, nil
}

// runOut iterates u until it stops and fills in its result. Each, when not
// nil, sees the run at every iteration once its pass is made, before it
// advances.
func (u *run) runOut(ctx context.Context, each func(*run)) {
	for !u.done {
		u.measure()
		if u.needsPass() {
			u.evaluate()
		}
		if each != nil {
			each(u)
		}
		u.advance(ctx)
	}
	u.finish()
}
