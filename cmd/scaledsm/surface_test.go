package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The checks of issue 25: honest failures, instant interrupts, safe
// outputs, the files people have, and the surface.

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// commandBinary builds the command once for the tests that run it as a process,
// with the version control stamp when the checkout has one.
func commandBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the command")
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "scaledsm-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "scaledsm")
		out, err := exec.Command("go", "build", "-buildvcs=auto", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = &buildError{out}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

type buildError struct{ out []byte }

func (e *buildError) Error() string { return "go build: " + string(e.out) }

// ratingsData writes synthetic ratings (generate --problem ratings) and
// returns their directory.
func ratingsData(t *testing.T) string {
	t.Helper()
	d := filepath.Join(t.TempDir(), "R")
	if code, _, errs := cli(t, "generate", "--problem", "ratings", "--out", d); code != 0 {
		t.Fatal(errs)
	}
	return d
}

// TestDivergedWithoutTruth: least squares with too long a step on
// ratings blows up; with no truth to compare with, the loss's growth says
// so: status diverged, exit 1, and the factors written under names that
// say they are not a result.
func TestDivergedWithoutTruth(t *testing.T) {
	d := ratingsData(t)
	out := filepath.Join(t.TempDir(), "o")
	code, stdout, errs := cli(t, "solve", "--ratings", filepath.Join(d, "train.csv"), "--rank", "3", "--method", "scaledgd", "--loss", "l2sq", "--out", out)
	if code != 1 || !strings.Contains(errs, "the solve failed: diverged") || !strings.Contains(errs, "not a result") || strings.Count(errs, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if !strings.Contains(stdout, "status     diverged") {
		t.Errorf("stdout %q", stdout)
	}
	for name, want := range map[string]bool{"L.diverged.npy": true, "R.diverged.npy": true, "L.npy": false, "R.npy": false} {
		if _, err := os.Stat(filepath.Join(out, name)); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", name, err == nil, want)
		}
	}
	if s := readSummary(t, filepath.Join(out, "summary.json")); s["status"] != "diverged" {
		t.Errorf("summary status %v", s["status"])
	}
	// predict refuses the directory: it has no result.
	if code, _, errs := cli(t, "predict", "--factors", out, "--pairs", filepath.Join(d, "test.csv"), "--out", filepath.Join(out, "p.csv")); code != 2 || !strings.Contains(errs, "L.npy") {
		t.Errorf("predict from a diverged solve: exit %d, %q", code, errs)
	}
}

// TestOutputsNeverReplaceInputs: an output that is an input, or would
// replace one, is refused before any work, and the input is untouched.
func TestOutputsNeverReplaceInputs(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "D")
	if code, _, errs := cli(t, "generate", "--problem", "mc", "--n", "60", "--r", "2", "--ps", "0.1", "--out", data); code != 0 {
		t.Fatal(errs)
	}
	// The truth named as the solve names its factor.
	truth, _ := os.ReadFile(filepath.Join(data, "L_star.npy"))
	os.WriteFile(filepath.Join(data, "L.npy"), truth, 0o644)
	entries := []string{"--rows", filepath.Join(data, "rows.npy"), "--cols", filepath.Join(data, "cols.npy"), "--values", filepath.Join(data, "values.npy"), "--shape", "60x60", "--rank", "2"}
	r := ratingsData(t)
	// A test file in the directory --out writes test.csv to, given
	// through a link.
	o := filepath.Join(dir, "o")
	os.Mkdir(o, 0o755)
	test, _ := os.ReadFile(filepath.Join(r, "test.csv"))
	os.WriteFile(filepath.Join(o, "test.csv"), test, 0o644)
	os.Symlink(filepath.Join(o, "test.csv"), filepath.Join(dir, "link.csv"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(slices.Clone(entries), "--truth-left", filepath.Join(data, "L.npy"), "--truth-right", filepath.Join(data, "R_star.npy"), "--out", data),
			"would overwrite the input --truth-left " + filepath.Join(data, "L.npy") + " with its L.npy"},
		{append(slices.Clone(entries), "--trace", filepath.Join(data, "rows.npy")), "--trace " + filepath.Join(data, "rows.npy") + ": would overwrite the input --rows"},
		{[]string{"--ratings", filepath.Join(r, "train.csv"), "--test", filepath.Join(dir, "link.csv"), "--out", o}, "would overwrite the input --test " + filepath.Join(dir, "link.csv") + " with its test.csv"},
	} {
		code, stdout, errs := cli(t, append([]string{"solve"}, c.args...)...)
		if code != 2 || stdout != "" || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errs, c.want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(data, "L.npy")); !bytes.Equal(b, truth) {
		t.Error("the input L.npy changed")
	}
	// predict onto its own pairs.
	model := filepath.Join(dir, "m")
	if code, _, errs := cli(t, "solve", "--ratings", filepath.Join(r, "train.csv"), "--rank", "2", "--iters", "5", "--out", model); code != 0 {
		t.Fatal(errs)
	}
	pairs := filepath.Join(r, "test.csv")
	before, _ := os.ReadFile(pairs)
	if code, _, errs := cli(t, "predict", "--factors", model, "--pairs", pairs, "--out", pairs); code != 2 || !strings.Contains(errs, "would overwrite the input --pairs") {
		t.Errorf("predict onto its pairs: exit %d, %q", code, errs)
	}
	if after, _ := os.ReadFile(pairs); !bytes.Equal(before, after) {
		t.Error("the pairs changed")
	}
}

// TestParentsCreated: outputs in directories that do not exist yet are
// written, the directories created.
func TestParentsCreated(t *testing.T) {
	dir := t.TempDir()
	deep := filepath.Join(dir, "a", "b", "c")
	if code, _, errs := cli(t, "generate", "--problem", "mc", "--n", "30", "--r", "2", "--out", deep); code != 0 {
		t.Fatalf("generate into a new path: %s", errs)
	}
	trace := filepath.Join(dir, "x", "y", "trace.csv")
	if code, _, errs := cli(t, "solve", "--n", "10", "--r", "2", "--iters", "3", "--trace", trace, "--out", filepath.Join(dir, "u", "v")); code != 0 {
		t.Fatalf("solve into new paths: %s", errs)
	}
	for _, p := range []string{filepath.Join(deep, "problem.json"), trace, filepath.Join(dir, "u", "v", "L.npy")} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
}

// TestNoOutWithJSON: a solve from files prints its JSON without --out;
// nothing needs writing.
func TestNoOutWithJSON(t *testing.T) {
	d := ratingsData(t)
	code, out, errs := cli(t, "solve", "--ratings", filepath.Join(d, "train.csv"), "--rank", "2", "--iters", "5", "--json")
	var js map[string]any
	if code != 0 || errs != "" || json.Unmarshal([]byte(out), &js) != nil || js["model"] != "bayes" {
		t.Fatalf("exit %d, stderr %q, stdout %.200q", code, errs, out)
	}
}

// TestSettingsNotReplaced: --damping 0 is no damping, not the automatic
// one; --q and --lambda do not choose the geometric step by themselves.
func TestSettingsNotReplaced(t *testing.T) {
	code, out, errs := cli(t, "solve", "--n", "10", "--r", "2", "--iters", "5", "--damping", "0", "--json")
	var js map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &js) != nil || js["damping"] != "none" {
		t.Errorf("--damping 0: exit %d, damping %v, stderr %q", code, js["damping"], errs)
	}
	for _, flag := range []string{"--q", "--lambda"} {
		code, _, errs := cli(t, "solve", "--n", "10", "--r", "2", flag, "0.5")
		if code != 2 || !strings.Contains(errs, flag+" 0.5: applies to --step geometric: give --step geometric too") {
			t.Errorf("%s alone: exit %d, %q", flag, code, errs)
		}
	}
}

// TestVersion: --version and version print the module version, the Go
// version and, when the binary was built in a git checkout, the revision.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, out, _ := cli(t, args...)
		if code != 0 || !strings.HasPrefix(out, "scaledsm ") || !strings.Contains(out, runtime.Version()) {
			t.Errorf("%v: exit %d, %q", args, code, out)
		}
	}
	bin := commandBinary(t)
	rev, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skip("not a git checkout: no revision to compare with")
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil || !strings.Contains(string(out), "revision "+strings.TrimSpace(string(rev))) {
		t.Errorf("version: %q (%v), want the revision %s", out, err, rev)
	}
}

// TestInterruptEveryPhase sends SIGINT and SIGTERM to a solve early (while
// it draws its problem), later (drawing or initializing, as the machine's
// speed has it) and while it iterates: each ends with 130 or 143 and one
// line that says what it stopped, nothing written before the iterations
// and the partial result after, no temporary file. The time to end is
// logged, and bounded loosely here (3 s: CI's machines are shared); the
// design's bound is a second (graceWait), measured on a quiet machine.
func TestInterruptEveryPhase(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no signals to send")
	}
	bin := commandBinary(t)
	for _, c := range []struct {
		args    []string
		after   time.Duration
		iterate bool
	}{
		{[]string{"--problem", "mc", "--n", "20000", "--r", "10", "--p", "0.03"}, 300 * time.Millisecond, false},
		{[]string{"--problem", "mc", "--n", "20000", "--r", "10", "--p", "0.03"}, 2500 * time.Millisecond, false},
		// Fast iterations: the partial result is written.
		{[]string{"--problem", "ms", "--n", "30", "--r", "3", "--step", "geometric", "--q", "0.99999", "--tol", "0", "--iters", "100000000"}, time.Second, true},
	} {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			out := filepath.Join(t.TempDir(), "out")
			cmd := exec.Command(bin, append(append([]string{"solve"}, c.args...), "--out", out)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(c.after)
			sent := time.Now()
			cmd.Process.Signal(sig)
			cmd.Wait()
			took := time.Since(sent)
			code := cmd.ProcessState.ExitCode()
			msg := stderr.String()
			if code != 128+int(sig) || took > 3*time.Second || strings.Count(msg, "\n") != 1 {
				t.Errorf("%v after %v: exit %d after %v, stderr %q; want %d", sig, c.after, code, took, msg, 128+int(sig))
			}
			entries, _ := os.ReadDir(out)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			switch {
			case strings.Contains(msg, "; nothing written"):
				if !strings.Contains(msg, "interrupted while ") || len(names) != 0 || c.iterate {
					t.Errorf("%v after %v: stderr %q, --out holds %v", sig, c.after, msg, names)
				}
			case strings.Contains(msg, "interrupted after"):
				if !slices.Equal(names, []string{"L.npy", "R.npy", "summary.json", "trace.csv"}) {
					t.Errorf("%v after %v: stderr %q, --out holds %v", sig, c.after, msg, names)
				}
			default:
				t.Errorf("%v after %v: stderr %q", sig, c.after, msg)
			}
			t.Logf("%v after %v: exit %d in %v: %s", sig, c.after, code, took.Round(time.Millisecond), strings.TrimSpace(msg))
		}
	}
}

// TestConcurrentRunsOneOut runs two solves of different ranks into one
// --out at once: the directory ends with one run's complete files.
func TestConcurrentRunsOneOut(t *testing.T) {
	bin := commandBinary(t)
	out := filepath.Join(t.TempDir(), "out")
	var wg sync.WaitGroup
	for _, r := range []string{"2", "3"} {
		wg.Go(func() {
			exec.Command(bin, "solve", "--problem", "ms", "--n", "40", "--r", r, "--out", out).Run()
		})
	}
	wg.Wait()
	s := readSummary(t, filepath.Join(out, "summary.json"))
	rank := int(s["rank"].(float64))
	for _, name := range []string{"L.npy", "R.npy"} {
		if m := readMatrix(t, filepath.Join(out, name)); m == nil {
			t.Fatalf("%s missing", name)
		} else if _, c := m.Dims(); c != rank {
			t.Errorf("%s has %d columns, summary.json rank %d: files of two runs", name, c, rank)
		}
	}
}

// TestDiskFull fills a small file system: the solve exits 3 with one line,
// and the earlier results stay as they were. Needs root, to mount it.
func TestDiskFull(t *testing.T) {
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("mounts a small tmpfs: Linux and root only")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	defer exec.Command("umount", mnt).Run()
	out := filepath.Join(mnt, "D")
	if code, _, errs := cli(t, "solve", "--problem", "ms", "--n", "20", "--r", "2", "--out", out); code != 0 {
		t.Fatal(errs)
	}
	before := map[string][]byte{}
	for _, name := range []string{"L.npy", "R.npy", "trace.csv", "summary.json"} {
		before[name], _ = os.ReadFile(filepath.Join(out, name))
	}
	code, _, errs := cli(t, "solve", "--problem", "mc", "--n", "400", "--r", "10", "--iters", "2", "--out", out)
	if code != 3 || !strings.Contains(errs, "no space left on device") || !strings.Contains(errs, "as they were") || strings.Count(errs, "\n") != 1 {
		t.Errorf("disk full: exit %d, stderr %q", code, errs)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != len(before) {
		t.Errorf("--out holds %d files after the failure, want the %d of before", len(entries), len(before))
	}
	for name, b := range before {
		if after, _ := os.ReadFile(filepath.Join(out, name)); !bytes.Equal(after, b) {
			t.Errorf("%s changed", name)
		}
	}
}
