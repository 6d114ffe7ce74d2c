package mem

import (
	"bufio"
	"bytes"
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
	if kb, found := meminfo("/proc/meminfo", "MemAvailable:"); found {
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

// meminfo returns the value in kB of the line of a /proc/meminfo file that
// starts with key.
func meminfo(path, key string) (int64, bool) {
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
