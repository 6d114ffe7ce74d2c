//go:build scaledsm_capi

// This file is the C API of the Python package: the command line's own
// package (cmd/scaledsm) built as a C shared library. It is not compiled
// into the command: python/setup.py adds it to cmd/scaledsm with
// go build -overlay and the tag scaledsm_capi, and builds with
// -buildmode=c-shared, so that a solve from Python parses the same flags,
// takes the same defaults (solverFlags.settings and complete) and words
// its errors as the command does, while every default build of the module
// stays free of cgo.
//
// Memory: the arrays that Python passes are C memory to Go. The operator
// keeps them (without a copy when their layout allows) only for the
// duration of scaledsm_solve; what outlives the call is the Result, in Go
// memory, behind an integer handle, which scaledsm_fetch copies into
// arrays that Python allocated and scaledsm_release forgets. No Go pointer
// is ever given to C.

package main

/*
#include <stdint.h>

// What a solve is given and, after it, the sizes of what it made.
typedef struct {
	int32_t kind;              // 0 matrix sensing, 1 quadratic sampling, 2 entries, 3 sampled (every entry, a float32)
	int64_t m, n1, n2;         // measurements and the shape of X
	const void *a;             // sensing: m×n1×n2 row-major; quadratic: m×n; float64 or float32
	int32_t a_f32;             // a holds float32 values
	const double *y;           // m observations (entries: in the order of rows and cols)
	const int32_t *rows, *cols; // entries: m positions
	const double *truth;       // optional n1×n2 row-major X*
	const char *args;          // the command line's solver flags, each ending with a NUL
	int64_t args_len;
	const int32_t *cancel;     // polled: nonzero stops the solve after the current iteration

	int64_t handle;            // the result, for scaledsm_fetch; 0 when there is none
	int32_t code;              // the command line's exit code: 0, 1 failed, 2 bad input, 130 interrupted
	int64_t rank, trace_len, summary_len;
	int32_t symmetric;         // no R
	uintptr_t seen_a, seen_y, seen_rows, seen_cols; // the buffers the library read
	char message[2048];        // the error's line, or a warning's, NUL-terminated
} scaledsm_call;
*/
import "C"

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/completion"
	"github.com/scaledsm/scaledsm/internal/mem"
	"github.com/scaledsm/scaledsm/report"
)

// capiResult is a finished solve kept for scaledsm_fetch.
type capiResult struct {
	res     *scaledsm.Result
	summary []byte
}

var (
	capiMu      sync.Mutex
	capiResults = map[int64]*capiResult{}
	capiNext    int64
	capiKernel  sync.Once
)

// Model kinds of scaledsm_call.kind.
const (
	capiSensing = iota
	capiQuadratic
	capiEntries
	capiSampled
)

// capiPoll is how often the cancel flag is read.
const capiPoll = 10 * time.Millisecond

//export scaledsm_solve
func scaledsm_solve(c *C.scaledsm_call) {
	c.handle, c.code, c.message[0] = 0, 0, 0
	defer func() {
		if r := recover(); r != nil {
			capiMessage(c, fmt.Sprintf("internal error: %v", r))
			c.code = exitFailed
		}
	}()
	capiKernel.Do(func() {
		if err := kernelFromEnv(); err != nil {
			capiMessage(c, "warning: "+err.Error())
		}
	})
	var warn bytes.Buffer
	h, err := capiSolve(c, &warn)
	if err != nil {
		var line bytes.Buffer
		c.code = C.int32_t(exit("solve", err, &line))
		msg := strings.TrimSpace(line.String())
		msg = strings.TrimPrefix(msg, "scaledsm solve: ")
		msg = strings.TrimSuffix(msg, ` (run "scaledsm solve --help")`)
		capiMessage(c, msg)
	}
	if h != nil {
		capiMu.Lock()
		capiNext++
		c.handle = C.int64_t(capiNext)
		capiResults[capiNext] = h
		capiMu.Unlock()
		if err == nil && warn.Len() > 0 {
			capiMessage(c, strings.TrimPrefix(strings.TrimSpace(warn.String()), "scaledsm solve: warning: "))
		}
		r := h.res
		_, rank := r.L.Dims()
		c.rank = C.int64_t(rank)
		c.trace_len = C.int64_t(len(r.Trace))
		c.summary_len = C.int64_t(len(h.summary))
		c.symmetric = 0
		if r.R == nil {
			c.symmetric = 1
		}
	}
}

// capiSolve solves the problem of c as solve does one read from files;
// the result is returned with an error when the run ended in a failure or
// an interruption, which outcome reports.
func capiSolve(c *C.scaledsm_call, warn io.Writer) (*capiResult, error) {
	var args []string
	if c.args_len > 0 {
		args = strings.Split(strings.TrimSuffix(C.GoStringN(c.args, C.int(c.args_len)), "\x00"), "\x00")
	}
	if int(c.kind) == capiSampled {
		return capiSeparate(c, args)
	}
	fs := newFlagSet("solve", "", io.Discard)
	var (
		sp synthFlags
		ff fileFlags
		sf solverFlags
		st startFlags
	)
	sp.register(fs)
	ff.register(fs)
	sf.register(fs)
	st.register(fs)
	holdout := fs.Float64("holdout", 0, "entries: the fraction held out, whose test errors the summary reports")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if *holdout != 0 && (int(c.kind) != capiEntries || !(*holdout > 0 && *holdout < 1)) {
		return nil, badFlag("holdout", *holdout, "applies to entries, as a fraction in (0, 1)")
	}
	// The operator and y come from memory; fileFlags checks the rest as
	// with files (--rank, --ps, and no flag of a synthetic problem).
	kind, n1, n2, m := int(c.kind), int(c.n1), int(c.n2), int(c.m)
	ff.y = "y"
	switch kind {
	case capiSensing, capiEntries:
		ff.sensing = "A"
	case capiQuadratic:
		ff.quadratic = "a"
	default:
		return nil, fmt.Errorf("unknown kind %d", kind)
	}
	src, err := ff.config(sp.ps, sp.n2)
	if err != nil {
		return nil, err
	}
	settings, err := sf.settings(false, c.truth != nil, kind == capiEntries)
	if err != nil {
		return nil, err
	}
	if err := st.apply(&settings.Settings, 0, false); err != nil { // arrays, as files: the start from seed 1
		return nil, err
	}
	if err := capiMemory(kind, m, n1, n2, src.rank.loadRank()); err != nil {
		return nil, err
	}

	t0 := time.Now()
	p := scaledsm.Problem{Rank: int(src.rank)}
	var held completion.HeldOut // --holdout's entries
	shape := report.Shape{Problem: "ms", N1: n1, N2: n2, Rank: src.rank.loadRank(), M: m}
	files := &report.Inputs{Operator: "A", Y: "y"}
	switch kind {
	case capiSensing:
		var s *scaledsm.Sensing
		if c.a_f32 != 0 {
			a := unsafe.Slice((*float32)(c.a), m*n1*n2)
			s, err = scaledsm.NewSensing(m, n1, n2, a)
			c.seen_a = capiAddr(s, func() uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(s.Data32()))) })
		} else {
			a := unsafe.Slice((*float64)(c.a), m*n1*n2)
			s, err = scaledsm.NewSensing(m, n1, n2, a)
			c.seen_a = capiAddr(s, func() uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(s.Data()))) })
		}
		if err != nil {
			return nil, capiInput("A", err)
		}
		p.Op = s
		p.Y = unsafe.Slice((*float64)(c.y), m)
	case capiQuadratic:
		shape.Problem = "qs"
		files.Operator = "a"
		a := unsafe.Slice((*float64)(c.a), m*n1)
		q, err := scaledsm.NewQuadratic(m, n1, a)
		if err != nil {
			return nil, capiInput("a", err)
		}
		c.seen_a = C.uintptr_t(uintptr(unsafe.Pointer(unsafe.SliceData(q.Data()))))
		p.Op = q
		p.Y = unsafe.Slice((*float64)(c.y), m)
	case capiEntries:
		shape.Problem = "mc"
		files.Operator = "entries"
		rows := unsafe.Slice((*int32)(c.rows), m)
		cols := unsafe.Slice((*int32)(c.cols), m)
		values := unsafe.Slice((*float64)(c.y), m)
		c.seen_rows = C.uintptr_t(uintptr(unsafe.Pointer(c.rows)))
		c.seen_cols = C.uintptr_t(uintptr(unsafe.Pointer(c.cols)))
		op, y, err := completion.NewEntries(n1, n2, rows, cols, values)
		if err != nil {
			return nil, err
		}
		if *holdout > 0 {
			if op, y, held, err = op.HoldOut(y, *holdout, sp.seed, holdoutStream); err != nil {
				return nil, err
			}
		}
		p.Op, p.Y = op, y
	}
	if kind != capiEntries {
		c.seen_y = C.uintptr_t(uintptr(unsafe.Pointer(unsafe.SliceData(p.Y))))
	} else {
		c.seen_y = C.uintptr_t(uintptr(unsafe.Pointer(c.y)))
	}
	if c.truth != nil {
		p.Truth = mat.NewDense(n1, n2, unsafe.Slice((*float64)(c.truth), n1*n2))
		files.Truth = new("truth")
	}
	if m == 0 {
		// As Solve would say, before the initialization says less.
		return nil, inputFlag(&scaledsm.InputError{Input: "y", Reason: "no observations"}, fileInputs)
	}
	ld := &loaded{problem: p, ps: src.ps, files: files, shape: shape}

	ctx, cancel := capiContext(c)
	defer cancel()
	warnRank(warn, ld)
	if err := sf.complete(ctx, &settings.Settings, ld); err != nil {
		return nil, inputFlag(inputFlag(inputFlag(err, solverInputs), startInputs), fileInputs)
	}
	setup := time.Since(t0)
	t1 := time.Now()
	res, err := completion.Solve(ctx, ld.problem, settings)
	if err != nil {
		return nil, inputFlag(inputFlag(err, solverInputs), fileInputs)
	}
	// The summary of solve with files, without the files' names.
	sum := &report.Summary{Shape: ld.shape, Run: report.NewRun(settings.Settings, res), Timing: report.NewTiming(res, time.Since(t1)), Began: t0}
	sum.Choices = report.NewChoices(settings.Settings, res)
	sum.SetRank(ld.problem.Rank, settings.Settings, res)
	sum.Source = "python"
	if op, ok := ld.problem.Op.(*completion.Entries); ok && *holdout > 0 {
		sum.Entries = report.NewEntries(op)
		sum.Entries.Holdout = holdout
		sum.Entries.SetTest(res.Factors, held)
	}
	if pk, ok := settings.Step.(scaledsm.Polyak); ok {
		sum.FStar = report.Finite(pk.FStar)
	}
	sum.SetupSeconds = setup.Seconds()
	sum.Interrupted = res.Status == scaledsm.Interrupted
	sum.Stamp()
	js, err := json.Marshal(sum)
	if err != nil {
		return nil, err
	}
	return &capiResult{res: &res.Result, summary: js}, outcome(res, warn, "")
}

// capiContext returns a context that ends when the caller sets c's cancel
// flag (read every capiPoll) or when cancel is called.
func capiContext(c *C.scaledsm_call) (context.Context, context.CancelFunc) {
	return capiCancel((*int32)(unsafe.Pointer(c.cancel)))
}

// capiCancel returns a context that ends when *flag becomes nonzero (read
// every capiPoll; never when flag is nil) or when cancel is called.
func capiCancel(flag *int32) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	if flag != nil {
		go func() {
			tick := time.NewTicker(capiPoll)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
					if atomic.LoadInt32(flag) != 0 {
						cancel()
						return
					}
				}
			}
		}()
	}
	return ctx, cancel
}

// capiSeparate is Python's separate(): video's fit (SolveSampled) of the
// n1 × n2 float32 matrix at c.a, read in place, with video's flags.
func capiSeparate(c *C.scaledsm_call, args []string) (*capiResult, error) {
	fs := newFlagSet("video", "", io.Discard)
	var vf videoFlags
	vf.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	n1, n2 := int(c.n1), int(c.n2)
	if err := vf.check(); err != nil {
		return nil, err
	}
	if err := vf.checkShape(n1, n2); err != nil {
		return nil, err
	}
	// Beside the data, in the caller's memory: the sample's fit, the
	// column blocks' buffers and the factors (see runVideo).
	if err := mem.Check(100*int64(min(vf.budget, n1*n2)) + 256<<20 + 64*int64(n1)*int64(vf.rank)); err != nil {
		return nil, exitError{fmt.Errorf("the problem %v", err), exitBadInput}
	}
	m := completion.Full32{N1: n1, N2: n2, Y: unsafe.Slice((*float32)(c.a), n1*n2)}
	c.seen_a = C.uintptr_t(uintptr(c.a))
	ctx, cancel := capiContext(c)
	defer cancel()
	res, err := completion.SolveSampled(ctx, m, vf.rank, vf.settings())
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, exitError{errors.New("interrupted; nothing returned"), exitInterrupted}
	case errors.As(err, new(*scaledsm.InputError)):
		return nil, capiInput("Y", err)
	case err != nil:
		return nil, err
	}
	sum := newVideoSummary("python", n1, n2, vf.rank, res)
	sum.Seconds = res.Runtime.Seconds()
	js, err := json.Marshal(sum)
	if err != nil {
		return nil, err
	}
	return &capiResult{res: &scaledsm.Result{Factors: res.Factors}, summary: js}, nil
}

// capiAddr returns the address of an operator's data, or 0 without one.
func capiAddr(s *scaledsm.Sensing, addr func() uintptr) C.uintptr_t {
	if s == nil {
		return 0
	}
	return C.uintptr_t(addr())
}

// capiInput names the argument of an operator's error, as the command
// names the file.
func capiInput(name string, err error) error {
	return exitError{fmt.Errorf("%s: %v", name, err), exitBadInput}
}

// capiMemory refuses a problem whose solve needs more memory than the
// machine has, as checkMemory does for the command: the operator's data is
// already in memory, so what counts is what the solve allocates beside it
// (for entries, their sorted copy; for quadratic sampling, its transposed
// copy), its vectors of one value per measurement, and the factors.
func capiMemory(kind, m, n1, n2, rank int) error {
	r := float64(min(max(rank, 1), max(min(n1, n2), 1)))
	need := float64(solveVectors) * 8 * float64(m)
	need += 8 * (float64(n1) + float64(n2)) * (r + 10) * 16
	switch kind {
	case capiQuadratic:
		need += 8 * float64(m) * float64(n1)
	case capiEntries:
		need += 8*(float64(n1)+1) + 12*float64(m) + 8*float64(n2)*r*capiMaxChunks
	}
	if err := mem.Check(int64(math.Min(need, math.MaxInt64))); err != nil {
		return exitError{fmt.Errorf("the problem %v", err), exitBadInput}
	}
	return nil
}

// capiMaxChunks bounds the library's number of chunks of a pass, each of
// which keeps a partial n2×r gradient of the entries.
const capiMaxChunks = 16

// capiMessage writes msg into c.message, cut to fit and NUL-terminated.
func capiMessage(c *C.scaledsm_call, msg string) {
	buf := unsafe.Slice((*byte)(unsafe.Pointer(&c.message[0])), len(c.message))
	n := copy(buf[:len(buf)-1], msg)
	buf[n] = 0
}

//export scaledsm_fetch
func scaledsm_fetch(handle C.int64_t, l, r, trace *C.double, summary *C.char) C.int32_t {
	capiMu.Lock()
	h := capiResults[int64(handle)]
	capiMu.Unlock()
	if h == nil {
		return 1
	}
	res := h.res
	copyDense := func(dst *C.double, x *mat.Dense) {
		if dst == nil || x == nil {
			return
		}
		rows, cols := x.Dims()
		out := unsafe.Slice((*float64)(unsafe.Pointer(dst)), rows*cols)
		for i := range rows {
			copy(out[i*cols:(i+1)*cols], x.RawRowView(i))
		}
	}
	copyDense(l, res.L)
	copyDense(r, res.R)
	if trace != nil {
		out := unsafe.Slice((*float64)(unsafe.Pointer(trace)), 7*len(res.Trace))
		for k, it := range res.Trace {
			copy(out[7*k:], []float64{float64(it.Iter), it.RelError, it.Change, it.Loss, it.Gap, it.Step, it.StepLength})
		}
	}
	if summary != nil {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(summary)), len(h.summary)), h.summary)
	}
	return 0
}

//export scaledsm_release
func scaledsm_release(handle C.int64_t) {
	capiMu.Lock()
	delete(capiResults, int64(handle))
	capiMu.Unlock()
}
