package atomicio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestSetFailure fails the third file of a set: no file of the set
// replaces the old ones, and no temporary file is left.
func TestSetFailure(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a"), []byte("old a"), 0o644)
	var out Set
	write := func(s string) func(w io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	if err := out.Add(filepath.Join(dir, "a"), write("new a")); err != nil {
		t.Fatal(err)
	}
	if err := out.Add(filepath.Join(dir, "b"), write("new b")); err != nil {
		t.Fatal(err)
	}
	err := out.Add(filepath.Join(dir, "c"), func(w io.Writer) error {
		io.WriteString(w, "half")
		return errors.New("disk full")
	})
	if err == nil {
		t.Fatal("no error")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the old a", len(entries))
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a")); string(b) != "old a" {
		t.Errorf("a holds %q", b)
	}

	// A complete set replaces the old files.
	out.Add(filepath.Join(dir, "a"), write("new a"))
	out.Add(filepath.Join(dir, "b"), write("new b"))
	if err := out.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a")); string(b) != "new a" {
		t.Errorf("a holds %q after commit", b)
	}
	entries, _ = os.ReadDir(dir)
	for _, e := range entries {
		if IsTemp(e.Name()) {
			t.Errorf("%s holds the temporary file %s", dir, e.Name())
		}
	}
}

// TestAddAll writes files at once: each holds its writer's content once
// committed, in a set that already holds one; one failing (the second of
// five, the others still written) leaves the old files and no temporary
// one, and its error is the one returned.
func TestAddAll(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f1"), []byte("old"), 0o644)
	var paths []string
	var writes []func(io.Writer) error
	for j := range 5 {
		paths = append(paths, filepath.Join(dir, fmt.Sprintf("f%d", j)))
		writes = append(writes, func(w io.Writer) error {
			if j == 1 {
				io.WriteString(w, "half")
				return errors.New("disk full")
			}
			_, err := io.WriteString(w, strings.Repeat(fmt.Sprint(j), 1<<16+j))
			return err
		})
	}
	var out Set
	if err := out.Add(filepath.Join(dir, "first"), func(w io.Writer) error { _, err := io.WriteString(w, "first"); return err }); err != nil {
		t.Fatal(err)
	}
	if err := out.AddAll(paths, writes, 2); err == nil || err.Error() != "disk full" {
		t.Fatalf("error %v, want disk full", err)
	}
	// One at a time, the files after the failed one are not started.
	var started atomic.Int32
	counted := make([]func(io.Writer) error, len(writes))
	for j, w := range writes {
		counted[j] = func(x io.Writer) error { started.Add(1); return w(x) }
	}
	if err := out.AddAll(paths, counted, 1); err == nil || started.Load() != 2 {
		t.Errorf("one at a time: error %v, %d files started, want 2", err, started.Load())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the old f1", len(entries))
	}
	writes[1] = func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }
	for _, workers := range []int{0, 1, 3} {
		var out Set
		if err := out.AddAll(paths, writes, workers); err != nil {
			t.Fatal(err)
		}
		if err := out.Commit(); err != nil {
			t.Fatal(err)
		}
		for j, p := range paths {
			want := strings.Repeat(fmt.Sprint(j), 1<<16+j)
			if j == 1 {
				want = "new"
			}
			if b, _ := os.ReadFile(p); string(b) != want {
				t.Errorf("workers %d: %s holds %d bytes, want %d", workers, p, len(b), len(want))
			}
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != len(paths) {
			t.Errorf("workers %d: directory holds %d entries, want %d", workers, len(entries), len(paths))
		}
	}
}
