package completion_test

import (
	"context"
	"testing"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/completion"
)

// TestTrimmedInvalid: a floor or a refit of TrimmedL2 out of range is
// refused when the settings are.
func TestTrimmedInvalid(t *testing.T) {
	for _, l := range []completion.TrimmedL2{{Refit: completion.RefitNever + 1}, {Floor: 0.5}, {Floor: 7}} {
		bad := scaledsm.Settings{Method: scaledsm.ScaledGD, Loss: l}
		if _, err := bad.Resolved(); err == nil {
			t.Errorf("%+v: no error", l)
		}
	}
}

// TestResultTrimFloor: Result.TrimFloor is the floor of TrimmedL2's
// factor that the fit used, the default 4.5 for a zero TrimmedL2.Floor,
// and 0 under another loss.
func TestResultTrimFloor(t *testing.T) {
	p := completionProblem(t, 60, 2, 0.5, 0, 1, 1)
	for _, c := range []struct {
		loss        scaledsm.Loss
		floor, want float64
	}{{completion.TrimmedL2{}, 0, 4.5}, {completion.TrimmedL2{Floor: 2}, 2, 2}, {scaledsm.L1, 0, 0}} {
		s := completion.DefaultSettings()
		s.Loss, s.Ridge, s.MaxIter = c.loss, 0, 3
		if _, trimmed := c.loss.(completion.TrimmedL2); !trimmed {
			s.Method, s.Step = scaledsm.ScaledSM, scaledsm.Auto{}
		}
		res, err := completion.Solve(context.Background(), p, s)
		if err != nil {
			t.Fatal(err)
		}
		if res.TrimFloor != c.want {
			t.Errorf("%v, floor %g: Result.TrimFloor %g, want %g", c.loss, c.floor, res.TrimFloor, c.want)
		}
	}
}
