package mem

import (
	"runtime/debug"
	"testing"
)

type sized int64

func (s sized) Bytes() int64 { return int64(s) }

func TestTuneGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	TuneGCFor(sized(1000))
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("small data: GC percent %d, want 100 kept", p)
	}
	TuneGCFor(sized(BigData + 100))
	if p := debug.SetGCPercent(100); p != 25 {
		t.Errorf("%d MB of data: GC percent %d, want 25", BigData>>20, p)
	}
	TuneGCFor(struct{}{})
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("data of no size: GC percent %d, want 100 kept", p)
	}
	t.Setenv("GOGC", "100")
	TuneGC(BigData + 100)
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("GOGC set: GC percent %d, want it left alone", p)
	}
}
