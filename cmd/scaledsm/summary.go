package main

import (
	"fmt"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/synth"
)

// The JSON the commands print or write (solve --json, summary.json,
// problem.json) share these pieces, so that a field has one name and one
// meaning wherever it appears.

// shapeJSON is the size of a problem.
type shapeJSON struct {
	Problem string `json:"problem"` // "ms" (matrix sensing) or "qs" (quadratic sampling)
	N1      int    `json:"n1"`
	N2      int    `json:"n2"`
	Rank    int    `json:"rank"`
	M       int    `json:"m"`
}

// drawJSON is the synthetic draw of a problem: the truth's condition
// number, the corruption and the seed.
type drawJSON struct {
	Kappa    float64  `json:"kappa"`
	PS       float64  `json:"ps"`
	Outliers int      `json:"outliers"` // measurements actually corrupted
	SNR      *float64 `json:"snr_db"`   // null without dense noise
	Seed     uint64   `json:"seed"`
}

func newDrawJSON(c synth.Config, s synth.Setting, in *synth.Instance) drawJSON {
	d := drawJSON{Kappa: s.Kappa, PS: s.PS, SNR: finite(s.SNR), Seed: c.Seed}
	for _, v := range in.Outlier {
		if v != 0 {
			d.Outliers++
		}
	}
	return d
}

// runJSON is how a solve ran and how it ended.
type runJSON struct {
	Method       string   `json:"method"`
	Step         string   `json:"step"`
	Lambda       *float64 `json:"lambda"` // geometric steps only
	Q            *float64 `json:"q"`      // geometric steps only
	Eta          *float64 `json:"eta"`    // constant steps only
	Loss         string   `json:"loss"`
	Status       string   `json:"status"`
	Iterations   int      `json:"iterations"`     // updates made before the stop
	FinalLoss    *float64 `json:"final_loss"`     // null when not finite
	RelError     *float64 `json:"rel_error"`      // null without a truth
	InitRelError *float64 `json:"init_rel_error"` // the initialization's
	Seconds      float64  `json:"seconds"`        // the iterations' wall time
	MsPerIter    *float64 `json:"ms_per_iter"`
}

func newRunJSON(s scaledsm.Settings, res *scaledsm.Result) runJSON {
	r := runJSON{
		Method: s.Method.String(), Step: fmt.Sprint(s.Step), Loss: s.Loss.String(),
		Status: res.Status.String(), Iterations: res.Iterations,
		FinalLoss: finite(res.Loss), RelError: finite(res.RelError),
		Seconds: res.Runtime.Seconds(),
	}
	switch step := s.Step.(type) {
	case scaledsm.Geometric:
		r.Lambda, r.Q = &step.Lambda, &step.Q
	case scaledsm.Constant:
		r.Eta = &step.Eta
	}
	if n := len(res.Trace); n > 0 {
		r.InitRelError = finite(res.Trace[0].RelError)
		if res.Iterations > 0 {
			r.MsPerIter = finite(1000 * res.Runtime.Seconds() / float64(n))
		}
	}
	return r
}
