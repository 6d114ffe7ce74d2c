package mem

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// Available returns the bytes of memory a new allocation can count on: the
// memory the kernel reports available (MemAvailable in /proc/meminfo), or
// less where the process's control group is limited (cgroup v2
// memory.max less memory.current, or v1 memory.limit_in_bytes less
// memory.usage_in_bytes). ok is false where none of these can be read (on
// systems other than Linux), and then the caller cannot check.
func Available() (bytes int64, ok bool) {
	avail := int64(math.MaxInt64)
	if kb, found := ProcKB("/proc/meminfo", "MemAvailable:"); found {
		avail, ok = kb*1024, true
	}
	for _, pair := range [][2]string{
		{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"},
		{"/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"},
	} {
		limit, lok := readInt(pair[0])
		used, uok := readInt(pair[1])
		if lok && uok && limit > used {
			avail, ok = min(avail, limit-used), true
		}
	}
	return avail, ok
}

// ProcKB returns the value in kB of the line of a /proc file (meminfo,
// status, smaps_rollup) whose first field is key ("VmHWM:").
func ProcKB(path, key string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == key {
			v, err := strconv.ParseInt(f[1], 10, 64)
			return v, err == nil
		}
	}
	return 0, false
}

// readInt reads a file holding one integer; "max" (no limit) and a
// missing file give ok = false.
func readInt(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return v, err == nil
}

// PeakRSS returns the peak resident set size of this process in bytes
// (VmHWM), where /proc/self/status tells it (Linux).
func PeakRSS() (int64, bool) {
	kb, ok := ProcKB("/proc/self/status", "VmHWM:")
	return kb * 1024, ok
}

// A TooBig error is memory that a piece of work needs beyond what the
// machine has available.
type TooBig struct {
	Need, Available int64
}

func (e *TooBig) Error() string {
	return fmt.Sprintf("needs about %s of memory but this machine has %s available", Format(e.Need), Format(e.Available))
}

// Check returns a *TooBig when need bytes exceed what Available says a
// new allocation can count on, and nil when they fit or nothing tells.
func Check(need int64) error {
	avail, ok := Available()
	if !ok || need <= avail {
		return nil
	}
	return &TooBig{need, avail}
}

// Format returns a size in bytes as people read it: "384 kB", "512 MB",
// "24.0 GB".
func Format(b int64) string {
	if b < 1e6 {
		return fmt.Sprintf("%.0f kB", float64(b)/1e3)
	}
	if b < 1e9 {
		return fmt.Sprintf("%.0f MB", float64(b)/1e6)
	}
	return fmt.Sprintf("%.1f GB", float64(b)/1e9)
}
