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
	Validation bool    // a fit of most of the entries, scored on the others
	Rank       int     // the rank fitted
	Start      Start   // the initialization
	Trim       Trim    // its truncation, for SpectralStart
	Ridge      float64 // the penalty (Settings.Ridge)
	Status     Status
	Iterations int
	// Runtime is the fit's wall time, its initialization included (that
	// of the fit returned is not in Result.Runtime's, which counts the
	// iterations).
	Runtime time.Duration
}

// fitLog collects the fits of one Solve, through its context: their
// records, and for each the fit it is part of (itself, or the fit that
// continued it, see absorb), by the index a Result keeps (Result.fit),
// not by pointer: a pointer into a finished run would keep the whole run
// alive, its operator's scratch and its buffers, for as long as the log
// (ten validation fits at 10^7 entries held 2.7 GB so).
type fitLog struct {
	mu   sync.Mutex
	fits []Fit
	part []int // the fit each record is part of, its own index for most
}

type (
	fitLogKey     struct{}
	validationKey struct{}
)

// withFitLog returns ctx with a log of the fits Solve makes, and the log,
// and reports whether the log is new (ctx had none: Solve was called by
// the user, not by itself).
func withFitLog(ctx context.Context) (context.Context, *fitLog, bool) {
	if log, ok := ctx.Value(fitLogKey{}).(*fitLog); ok {
		return ctx, log, false
	}
	log := &fitLog{}
	return context.WithValue(ctx, fitLogKey{}, log), log, true
}

// validating marks the fits made with the returned context as validation
// fits.
func validating(ctx context.Context) context.Context {
	return context.WithValue(ctx, validationKey{}, true)
}

// logFit records the fit res of p with the settings s, which took wall
// time d, in ctx's log.
func logFit(ctx context.Context, res *Result, p Problem, s Settings, d time.Duration) {
	log, ok := ctx.Value(fitLogKey{}).(*fitLog)
	if !ok {
		return
	}
	v, _ := ctx.Value(validationKey{}).(bool)
	f := Fit{Validation: v, Rank: p.Rank, Start: s.Start, Trim: s.Trim, Ridge: s.Ridge,
		Status: res.Status, Iterations: res.Iterations, Runtime: d}
	if s.Init != nil && s.Start == SpectralStart {
		f.Trim = s.Trim // a start computed ahead by the caller, as it names it
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	res.fit = len(log.fits) + 1
	log.fits = append(log.fits, f)
	log.part = append(log.part, res.fit)
}

// absorb counts the fit from as part of into, which continues it and
// adds its iterations and time to its own (AutoRank's polish).
func absorb(ctx context.Context, into, from *Result) {
	log, ok := ctx.Value(fitLogKey{}).(*fitLog)
	if !ok {
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
// records it in ctx's log. Each, when not nil, sees the run at every
// iteration once its pass is made, before it advances.
func fit(ctx context.Context, p Problem, s Settings, each func(*run)) (*Result, error) {
	t0 := time.Now()
	u, err := start(ctx, p, s)
	if err != nil {
		return nil, err
	}
	u.start = time.Now() // the iterations' time, apart from the start's
	u.res.InitRuntime = u.start.Sub(t0)
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
	logFit(ctx, &u.res, p, u.s, time.Since(t0))
	return &u.res, nil
}
