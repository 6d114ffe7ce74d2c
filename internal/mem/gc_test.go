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
	TuneGCTight(HugeData)
	if p := debug.SetGCPercent(100); p != 5 {
		t.Errorf("a table of %d MB: GC percent %d, want 5", HugeData>>20, p)
	}
	TuneGCTight(BigData)
	if p := debug.SetGCPercent(100); p != 25 {
		t.Errorf("a table of %d MB: GC percent %d, want 25 as TuneGC", BigData>>20, p)
	}
	TuneGC(HugeData)
	if p := debug.SetGCPercent(100); p != 10 {
		t.Errorf("%d MB of data: GC percent %d, want 10", HugeData>>20, p)
	}
	t.Setenv("GOGC", "100")
	TuneGC(BigData + 100)
	TuneGCTight(HugeData)
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("GOGC set: GC percent %d, want it left alone", p)
	}
}
