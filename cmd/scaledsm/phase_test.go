package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPhaseCommand runs the quick grid: the CSV, the maps and phase.json
// are written, the report has the study, and the claims are printed, one
// per outlier model and reference.
func TestPhaseCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("about ten seconds")
	}
	dir := t.TempDir()
	code, out, errs := cli(t, "phase", "--quick", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, name := range []string{"phase.csv", "phase.json", "phase_random.png", "phase_columns.svg", "phase_blocks.png", "index.html"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if n := strings.Count(out, "succeeds wherever"); n != 6 {
		t.Errorf("%d claims printed, want 6:\n%s", n, out)
	}
	html, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	if !strings.Contains(string(html), "where robust PCA succeeds") {
		t.Error("the report has no phase study")
	}
	if code, _, errs := cli(t, "phase"); code != 2 || !strings.Contains(errs, "--out is required") {
		t.Errorf("without --out: exit %d, %q", code, errs)
	}
}
