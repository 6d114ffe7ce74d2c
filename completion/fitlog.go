package completion

import (
	"context"
	"sync"
	"time"

	"github.com/scaledsm/scaledsm"
)

// A Fit is one fit that Solve made besides the one it returned: a
// validation fit of most of the entries, scored on those held out (the
// ranks of AutoRank, the penalties of AutoRidge), or a fit of all of them
// that a later one replaced or that was not kept (a start whose fit was
// not exact, a later start that did no better, the unpenalized fit that a
// validated one replaced). Result.Fits lists them in the order made, so
// that a run's every iteration and second is accounted for.
type Fit struct {
	Validation bool                // a fit of most of the entries, scored on the others
	Rank       int                 // the rank fitted
	Start      scaledsm.Start      // the initialization
	Truncation scaledsm.Truncation // its truncation, for SpectralStart
	Ridge      float64             // the penalty (Settings.Ridge)
	Status     scaledsm.Status
	Iterations int
	// Runtime is the fit's wall time, its initialization included (that
	// of the fit returned is not in Result.Runtime's, which counts the
	// iterations).
	Runtime time.Duration
}

// fitLog collects the records of the fits of one Solve; a Result keeps its
// own's index (Result.fit), the log no pointer to it: a result holds its
// factors, and ten validation fits at 10^7 entries held 2.7 GB so.
type fitLog struct {
	mu   sync.Mutex
	fits []Fit
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
func (pl pipeline) record(res *Result, p scaledsm.Problem, s scaledsm.Settings, d time.Duration) {
	if pl.log == nil {
		return
	}
	f := Fit{Validation: pl.validation, Rank: p.Rank, Start: s.Start, Truncation: s.Truncation, Ridge: s.Ridge,
		Status: res.Status, Iterations: res.Iterations, Runtime: d}
	if s.Init != nil && s.Start == scaledsm.SpectralStart {
		f.Truncation = s.Truncation // a start computed ahead by the caller, as it names it
	}
	log := pl.log
	log.mu.Lock()
	defer log.mu.Unlock()
	res.fit = len(log.fits) + 1
	log.fits = append(log.fits, f)
}

// others returns the fits of the log but res, the one returned.
func (log *fitLog) others(res *Result) []Fit {
	log.mu.Lock()
	defer log.mu.Unlock()
	var fits []Fit
	for k, f := range log.fits {
		if k+1 != res.fit {
			fits = append(fits, f)
		}
	}
	return fits
}

// fit makes one fit of p with the settings s from its initialization and
// records it.
func (pl pipeline) fit(ctx context.Context, p scaledsm.Problem, s Settings) (*Result, error) {
	t0 := time.Now()
	res, err := pl.evaluate(ctx, p, s.Settings)
	if err != nil {
		return nil, err
	}
	pl.record(res, p, s.Settings, time.Since(t0))
	return res, nil
}

// evaluate makes one fit of p with the settings s, unrecorded.
func (pl pipeline) evaluate(ctx context.Context, p scaledsm.Problem, s scaledsm.Settings) (*Result, error) {
	r, err := scaledsm.Solve(ctx, p, s)
	if err != nil {
		return nil, err
	}
	res := &Result{Result: *r}
	res.TrimFloor = trimFloorOf(s)
	return res, nil
}
