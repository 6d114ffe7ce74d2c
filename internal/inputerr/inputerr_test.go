package inputerr_test

import (
	"testing"

	"github.com/scaledsm/scaledsm/internal/inputerr"
)

func TestError(t *testing.T) {
	for _, c := range []struct {
		e    inputerr.Error
		want string
	}{
		{inputerr.Error{Input: "rank", Value: 0, Reason: "must be at least 1"}, "scaledsm: rank 0: must be at least 1"},
		{inputerr.Error{Input: "y", Reason: "has a NaN"}, "scaledsm: y: has a NaN"},
		{inputerr.Error{Input: "ratings", Reason: "no ratings", Source: "recommend"}, "recommend: ratings: no ratings"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("%+v: got %q, want %q", c.e, got, c.want)
		}
	}
}
