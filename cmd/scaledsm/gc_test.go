package main

import (
	"runtime/debug"
	"testing"

	"github.com/scaledsm/scaledsm"
)

func TestTuneGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	small, err := scaledsm.NewSensing32(10, 10, 10, make([]float32, 1000))
	if err != nil {
		t.Fatal(err)
	}
	tuneGC(small)
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("small data: GC percent %d, want 100 kept", p)
	}
	n := bigData/4 + 100
	big, err := scaledsm.NewSensing32(n/100, 10, 10, make([]float32, n/100*100))
	if err != nil {
		t.Fatal(err)
	}
	tuneGC(big)
	if p := debug.SetGCPercent(100); p != 25 {
		t.Errorf("%d MB of data: GC percent %d, want 25", big.Bytes()>>20, p)
	}
	t.Setenv("GOGC", "100")
	tuneGC(big)
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("GOGC set: GC percent %d, want it left alone", p)
	}
}
