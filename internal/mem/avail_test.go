package mem

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestMeminfo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "meminfo")
	os.WriteFile(path, []byte("MemTotal:       24567800 kB\nMemFree:        20000000 kB\nMemAvailable:   23456789 kB\n"), 0o644)
	if v, ok := ProcKB(path, "MemAvailable:"); !ok || v != 23456789 {
		t.Errorf("ProcKB = %d, %v", v, ok)
	}
	if _, ok := ProcKB(path, "SwapTotal:"); ok {
		t.Error("found a missing key")
	}
	max := filepath.Join(t.TempDir(), "memory.max")
	os.WriteFile(max, []byte("max\n"), 0o644)
	if _, ok := readInt(max); ok {
		t.Error(`"max" read as a limit`)
	}
}

func TestAvailable(t *testing.T) {
	v, ok := Available()
	if runtime.GOOS == "linux" && !ok {
		t.Fatal("no available memory read on Linux")
	}
	if ok && v <= 0 {
		t.Errorf("available memory %d", v)
	}
	t.Logf("available: %.1f GB", float64(v)/1e9)
}

func TestCheckAndFormat(t *testing.T) {
	if got := Format(384e3) + ", " + Format(512e6) + ", " + Format(24e9); got != "384 kB, 512 MB, 24.0 GB" {
		t.Errorf("Format: %s", got)
	}
	if err := Check(1); err != nil {
		t.Errorf("one byte: %v", err)
	}
	if avail, ok := Available(); ok {
		err := Check(avail + 1e12)
		tb, isTooBig := err.(*TooBig)
		if !isTooBig || tb.Available != avail || !strings.HasPrefix(err.Error(), "needs about ") {
			t.Errorf("a terabyte more than available: %v", err)
		}
	}
}
