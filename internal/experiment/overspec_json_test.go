package experiment

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/scaledsm/scaledsm/synth"
)

// TestOverSpecJSON: the study survives its file, a diverged run's error
// included, and the report shows its section and claims.
func TestOverSpecJSON(t *testing.T) {
	r := &OverSpecResult{Config: DefaultOverSpec(), Runs: []OverSpecRun{
		{Problem: synth.Sensing, Factor: 2, Kappa: 100, M: 960, Variant: Damped, Converged: true, Iterations: 104, RelError: 9e-11, Rank: 2},
		{Problem: synth.Quadratic, Factor: 4, Kappa: 1, M: 2560, Variant: Vanilla, Iterations: 1000, RelError: math.Inf(1), Rank: 8},
	}}
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	back, err := ReadOverSpec(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Runs) != 2 || back.Runs[0] != r.Runs[0] || !math.IsNaN(back.Runs[1].RelError) || back.Runs[1].Iterations != 1000 {
		t.Errorf("runs read back: %+v", back.Runs)
	}
	if back.Config.Kappas[1] != 100 || back.Config.Factors[2] != 4 {
		t.Errorf("config read back: %+v", back.Config)
	}
	var page bytes.Buffer
	if err := WriteReportWith(&page, nil, Studies{OverSpec: back}); err != nil {
		t.Fatal(err)
	}
	if s := page.String(); !strings.Contains(s, "over-specified rank") || !strings.Contains(s, "damped ScaledSM reaches") {
		t.Error("the report has no over-specified rank section with its claims")
	}
}
