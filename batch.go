package scaledsm

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Job is one problem and its settings, to be solved in a batch.
type Job struct {
	Problem  Problem
	Settings Settings
}

// batchEvaluator is an Operator that evaluates several Evaluations in one
// pass over its data. evaluateBatch must leave each Evaluation as Evaluate
// would.
type batchEvaluator interface {
	Operator
	evaluateBatch(es []*Evaluation)
}

// SolveBatch solves jobs that share one operator (the same Operator value),
// such as the curves of a figure: all runs advance together, one
// evaluation of the operator per iteration for all of them when it is a
// Sensing or a Quadratic, and each run leaves the batch as it stops. The results,
// in the order of the jobs, are those Solve would give each job alone; each
// Runtime is the wall time from the batch's start to that run's stop.
//
// An invalid job is reported as an error naming it, before any run starts.
func SolveBatch(ctx context.Context, jobs []Job) ([]*Result, error) {
	if len(jobs) == 0 {
		return nil, nil
	}
	op := jobs[0].Problem.Op
	runs := make([]*run, len(jobs))
	for i, j := range jobs {
		if j.Problem.Op != op {
			return nil, fmt.Errorf("scaledsm: batch job %d has another operator than job 0; a batch shares one", i)
		}
		if j.Problem.Reducer != nil {
			return nil, fmt.Errorf("scaledsm: batch job %d is a shard of a problem on several ranks, which Solve runs; a batch runs whole problems", i)
		}
		u, err := start(ctx, j.Problem, j.Settings)
		if err != nil {
			return nil, fmt.Errorf("batch job %d: %w", i, err)
		}
		runs[i] = u
	}
	if op == nil {
		return nil, errors.New("scaledsm: batch has no operator")
	}
	batch, _ := op.(batchEvaluator)
	active := append([]*run(nil), runs...)
	evals := make([]*Evaluation, 0, len(runs))
	for len(active) > 0 {
		evals = evals[:0]
		for _, u := range active {
			u.measure()
			if u.needsPass() {
				evals = append(evals, u.eval)
			}
		}
		if batch != nil {
			batch.evaluateBatch(evals)
		} else {
			for _, e := range evals {
				op.Evaluate(e)
			}
		}
		kept := active[:0]
		for _, u := range active {
			u.advance(ctx)
			if u.done {
				u.finish()
			} else {
				kept = append(kept, u)
			}
		}
		active = kept
	}
	results := make([]*Result, len(runs))
	for i, u := range runs {
		results[i] = &u.res
	}
	return results, nil
}

// buffers holds the scratch buffers of the batched passes, which are too
// big to allocate at every iteration and belong to no one Evaluation.
var buffers sync.Pool

// getBuffer returns a buffer of n elements (not zeroed).
func getBuffer(n int) *[]float64 {
	if p, ok := buffers.Get().(*[]float64); ok && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	}
	b := make([]float64, n)
	return &b
}

func putBuffer(p *[]float64) { buffers.Put(p) }
