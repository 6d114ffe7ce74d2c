package atomicio

import (
	"errors"
	"io"
	"os"
	"path/filepath"
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
