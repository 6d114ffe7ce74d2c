package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/scaledsm/scaledsm/internal/kernel"
)

// childEnv makes the test binary act as the command: bench re-executes its
// own binary for each case, which under go test is the test binary.
const childEnv = "SCALEDSM_TEST_AS_COMMAND"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestBenchQuick runs bench in quick mode, each case in a process of its
// own, and checks the JSON it prints.
func TestBenchQuick(t *testing.T) {
	t.Setenv(childEnv, "1")
	code, out, errs := cli(t, "bench", "--quick", "--json", "--iters", "5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rs []map[string]any
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		t.Fatalf("output is not one JSON array: %v\n%s", err, out)
	}
	var cases []string
	for _, r := range rs {
		name, _ := r["case"].(string)
		cases = append(cases, name)
		for _, key := range []string{"ms_per_iter", "floor_ms", "data_mb"} {
			if v, ok := r[key].(float64); !ok || !(v > 0) || math.IsInf(v, 0) {
				t.Errorf("%s: %s = %v, want a positive number", name, key, r[key])
			}
		}
		rss, ok := r["peak_rss_mb"].(float64)
		switch {
		case runtime.GOOS == "linux" && (!ok || rss < r["data_mb"].(float64)):
			t.Errorf("%s: peak_rss_mb = %v, want at least the data's %v MB", name, r["peak_rss_mb"], r["data_mb"])
		case runtime.GOOS != "linux" && r["peak_rss_mb"] != nil:
			t.Errorf("%s: peak_rss_mb = %v without /proc, want null", name, r["peak_rss_mb"])
		}
		if r["kernel"] != kernel.Active() {
			t.Errorf("%s: kernel %v, want %s", name, r["kernel"], kernel.Active())
		}
		if it, _ := r["iterations"].(float64); it < 4 {
			t.Errorf("%s: %v iterations timed, want the 5 asked for (less the first)", name, r["iterations"])
		}
	}
	if got := strings.Join(cases, ","); got != "sensing-f64,sensing-f32,quadratic,sweep-109,mc-1e6,mc-1e7,netflix-1e7" {
		t.Fatalf("cases %s", got)
	}
	for _, r := range rs {
		// The floor is the fastest read: no slower than the median of the
		// reads, the same as the Go floor without --membw.
		if r["floor_ms"].(float64) > r["floor_median_ms"].(float64) || r["floor_ms"] != r["go_floor_ms"] {
			t.Errorf("%s: floor %v, Go floor %v, median read %v", r["case"], r["floor_ms"], r["go_floor_ms"], r["floor_median_ms"])
		}
	}
	// The completion cases: the stored entries are 12 bytes each (a column
	// and an observation; 8 for the Netflix shape's float32 observations,
	// as ratings are held), the memory limit 40 bytes each plus the
	// factors, the generation is timed, and so are the floors of the
	// arithmetic and of the random accesses.
	for _, r := range rs[4:] {
		var m, n1, n2, rank float64
		if _, err := fmt.Sscanf(r["size"].(string), "%f×%f r=%f m=%f", &n1, &n2, &rank, &m); err != nil {
			t.Fatalf("%s: size %v: %v", r["case"], r["size"], err)
		}
		per := 12.0
		if strings.HasPrefix(r["case"].(string), "netflix") {
			per = 8
		}
		if got, want := r["data_mb"].(float64), per*m/1e6; math.Abs(got-want) > 1e-9*want {
			t.Errorf("%s: data %v MB, want %v", r["case"], got, want)
		}
		if got, want := r["memory_limit_mb"].(float64), (40*m+8*(n1+n2)*rank)/1e6; math.Abs(got-want) > 1e-9*want {
			t.Errorf("%s: memory limit %v MB, want %v", r["case"], got, want)
		}
		if g, _ := r["generate_ms"].(float64); !(g > 0) {
			t.Errorf("%s: generate_ms %v", r["case"], r["generate_ms"])
		}
		// The arithmetic floor is 3r multiply-adds an entry at the
		// peak; the random accesses are timed.
		peak, cf := r["fma_peak_g_per_s"].(float64), r["compute_floor_ms"].(float64)
		if want := 3 * rank * m / (peak * 1e9) * 1e3; math.Abs(cf-want) > 1e-9*want {
			t.Errorf("%s: arithmetic floor %v ms, want %v at %v G/s", r["case"], cf, want, peak)
		}
		if a, _ := r["access_floor_ms"].(float64); !(a > 0) {
			t.Errorf("%s: access_floor_ms %v", r["case"], r["access_floor_ms"])
		}
	}
	sweep := rs[3]
	if sweep["runs"] != 109.0 || sweep["speedup"] == nil || sweep["one_at_a_time_ms"] == nil {
		t.Errorf("sweep: runs %v, speedup %v, one at a time %v", sweep["runs"], sweep["speedup"], sweep["one_at_a_time_ms"])
	}
	num := func(key string) float64 {
		v, ok := sweep[key].(float64)
		if !ok || !(v > 0) || math.IsInf(v, 0) {
			t.Errorf("sweep: %s = %v, want a positive number", key, sweep[key])
		}
		return v
	}
	// The arithmetic floor: a run's 2·m·n1·n2 multiply-adds (m = 480,
	// n1 = n2 = 20 in quick mode) at the measured rate, and the speed-up
	// over one at a time it allows.
	peak, cf, most := num("fma_peak_g_per_s"), num("compute_floor_ms"), num("max_speedup")
	if want := 2 * 480 * 20 * 20 / (peak * 1e9) * 1e3; math.Abs(cf-want) > 1e-9*want {
		t.Errorf("sweep: compute floor %v ms, want %v at %v G/s", cf, want, peak)
	}
	if want := num("one_at_a_time_ms") / cf; math.Abs(most-want) > 1e-9*want {
		t.Errorf("sweep: max speed-up %v, want %v", most, want)
	}
	num("batch_ms_per_iter")
	// The sensing cases carry their memory limit, 1.15 × data + 64 MB.
	for _, r := range rs[:2] {
		if lim, _ := r["memory_limit_mb"].(float64); math.Abs(lim-(1.15*r["data_mb"].(float64)+64)) > 1e-9 {
			t.Errorf("%s: memory limit %v", r["case"], r["memory_limit_mb"])
		}
	}
	// float32 storage holds half the bytes.
	if rs[1]["data_mb"].(float64) != rs[0]["data_mb"].(float64)/2 {
		t.Errorf("data: %v MB as float32, %v MB as float64", rs[1]["data_mb"], rs[0]["data_mb"])
	}

	// The table, with one case and another kernel.
	code, out, errs = cli(t, "bench", "--quick", "--cases", "quadratic", "--kernel", "generic", "--iters", "3")
	if code != 0 {
		t.Fatalf("table: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "| quadratic | n=20 r=2 m=320 |") || !strings.Contains(out, "kernel generic") {
		t.Errorf("table:\n%s", out)
	}
}

// TestBenchMembw gives bench a stand-in for the C streaming-read program
// that reports an impossibly fast rate: the floor is then the data's bytes
// at that rate, below the bench's own read.
func TestBenchMembw(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in is a shell script")
	}
	t.Setenv(childEnv, "1")
	prog := filepath.Join(t.TempDir(), "membw")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\necho \"1000000.0 GB/s read ($1 threads), one 640 MB pass: 0.0 ms\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errs := cli(t, "bench", "--quick", "--json", "--iters", "3", "--cases", "quadratic,mc-1e6", "--membw", prog)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rs []map[string]any
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		c := r["data_mb"].(float64) / 1e6 // ms at 10^6 GB/s
		if got := r["membw_floor_ms"].(float64); math.Abs(got-c) > 1e-9*c {
			t.Errorf("%s: C floor %v ms, want %v", r["case"], got, c)
		}
		if r["floor_ms"].(float64) != c || r["go_floor_ms"].(float64) <= c {
			t.Errorf("%s: floor %v, Go floor %v, C floor %v", r["case"], r["floor_ms"], r["go_floor_ms"], c)
		}
	}
	bad := filepath.Join(t.TempDir(), "membw")
	os.WriteFile(bad, []byte("#!/bin/sh\necho fast\n"), 0o755)
	if code, _, errs := cli(t, "bench", "--quick", "--cases", "quadratic", "--membw", bad); code == 0 || !strings.Contains(errs, "--membw "+bad) {
		t.Errorf("a program that prints no rate: exit %d, %s", code, errs)
	}
}

func TestBenchBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--cases", "sensing-f64,fft"}, `--cases sensing-f64,fft: unknown case "fft"`},
		{[]string{"--iters", "-1"}, "--iters -1"},
		{[]string{"--iters", "0"}, "--iters 0: must be positive"}, // not the default
		{[]string{"--quick", "--cases", "quadratic", "--membw", "/nonexistent/membw"}, "--membw /nonexistent/membw: cannot run it"},
		{[]string{"--kernel", "neon"}, "--kernel neon"},
	} {
		code, _, errs := cli(t, append([]string{"bench"}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", c.args, code, errs, c.want)
		}
	}
	if _, out, _ := cli(t, "bench", "--help"); strings.Contains(out, "child") || !strings.Contains(out, "--quick") {
		t.Errorf("bench --help shows the internal flag or lacks --quick:\n%s", out)
	}
}

// TestKernelSelection checks --kernel and SCALEDSM_KERNEL.
func TestKernelSelection(t *testing.T) {
	args := []string{"solve", "--json", "--n", "12", "--r", "2", "--ps", "0.1"}
	for _, name := range kernel.Available() {
		code, out, errs := cli(t, append(args, "--kernel", name)...)
		if code != 0 {
			t.Fatalf("--kernel %s: exit %d: %s", name, code, errs)
		}
		var rep map[string]any
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		if rep["kernel"] != name || rep["status"] != "converged" {
			t.Errorf("--kernel %s: kernel %v, status %v", name, rep["kernel"], rep["status"])
		}
	}
	t.Setenv(kernelEnv, "generic")
	code, out, errs := cli(t, args...)
	if code != 0 || !strings.Contains(out, `"kernel": "generic"`) {
		t.Errorf("%s=generic: exit %d, %s%s", kernelEnv, code, out, errs)
	}
	t.Setenv(kernelEnv, "mmx")
	code, _, errs = cli(t, args...)
	if code != 2 || !strings.Contains(errs, kernelEnv+"=mmx: unknown implementation") {
		t.Errorf("%s=mmx: exit %d, stderr %q", kernelEnv, code, errs)
	}
	t.Setenv(kernelEnv, "")
	// Each run starts from the default: a --kernel earlier does not stick.
	cli(t, append(args, "--kernel", "generic")...)
	if _, out, _ := cli(t, args...); !strings.Contains(out, `"kernel": "`+kernel.Available()[len(kernel.Available())-1]+`"`) {
		t.Errorf("after --kernel generic, a run without it uses: %s", out)
	}
}

// TestSolvePrecision solves a sensing problem stored as float32 to 1e-12.
func TestSolvePrecision(t *testing.T) {
	code, out, errs := cli(t, "solve", "--json", "--problem", "ms", "--n", "14", "--r", "2", "--ps", "0.2", "--precision", "f32")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep["precision"] != "f32" || rep["status"] != "converged" || rep["rel_error"].(float64) > 1e-12 {
		t.Errorf("precision %v, status %v, error %v", rep["precision"], rep["status"], rep["rel_error"])
	}
}

// TestBenchBLASAnchor runs the sweep with a stand-in Python that has no
// NumPy: the bench succeeds and says why the anchor is missing. Where a
// Python with NumPy is installed, the anchor's products are timed and its
// ratio is the batched iteration over their time.
func TestBenchBLASAnchor(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in is a shell script")
	}
	t.Setenv(childEnv, "1")
	py := filepath.Join(t.TempDir(), "python3")
	if err := os.WriteFile(py, []byte("#!/bin/sh\necho '{\"error\": \"no NumPy: stand-in\"}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errs := cli(t, "bench", "--quick", "--cases", "sweep-109", "--iters", "3", "--python", py)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "sweep-109: no tuned-BLAS anchor ("+py+": no NumPy: stand-in;") {
		t.Errorf("no note of the missing anchor:\n%s", out)
	}
	code, out, errs = cli(t, "bench", "--quick", "--json", "--cases", "sweep-109", "--iters", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rs []map[string]any
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		t.Fatal(err)
	}
	r := rs[0]
	if r["sweep_rows"] != 480.0 || r["sweep_row_length"] != 400.0 {
		t.Errorf("sweep shape %v x %v, want 480 x 400", r["sweep_rows"], r["sweep_row_length"])
	}
	if share, want := r["fma_peak_share"].(float64), r["compute_floor_ms"].(float64)/r["ms_per_iter"].(float64); math.Abs(share-want) > 1e-12*want {
		t.Errorf("FMA peak share %v, want %v", share, want)
	}
	if note, ok := r["blas_note"].(string); ok {
		t.Logf("no Python with NumPy here: %s", note)
		return
	}
	blas, _ := r["blas_ms"].(float64)
	if ratio, want := r["scaledsm_over_blas"].(float64), r["batch_ms_per_iter"].(float64)/blas; !(blas > 0) || math.Abs(ratio-want) > 1e-12*want {
		t.Errorf("BLAS %v ms, ratio %v, want %v", blas, ratio, want)
	}
}

// TestBenchLIBMFAnchor: without LIBMF the libmf case is a note that says
// how to get it; a --libmf that cannot run is an error naming it.
func TestBenchLIBMFAnchor(t *testing.T) {
	t.Setenv(childEnv, "1") // the case runs this binary as the command
	t.Setenv("PATH", t.TempDir())
	code, out, errs := cli(t, "bench", "--quick", "--cases", "libmf")
	if code != 0 || !strings.Contains(out, "LIBMF absent: give --libmf PATH") {
		t.Errorf("no LIBMF: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, _, errs := cli(t, "bench", "--quick", "--cases", "libmf", "--libmf", "/nonexistent/mf-train"); code == 0 || !strings.Contains(errs, "mf-train") {
		t.Errorf("a missing mf-train: exit %d, stderr %q", code, errs)
	}
}
