package atomicio

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestWriteDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	file := func(name, text string) File {
		return File{name, func(w io.Writer) error { _, err := io.WriteString(w, text); return err }}
	}
	names := func() []string {
		es, _ := os.ReadDir(filepath.Dir(dir))
		var v []string
		for _, e := range es {
			v = append(v, e.Name())
		}
		sub, _ := os.ReadDir(dir)
		for _, e := range sub {
			v = append(v, "set/"+e.Name())
		}
		return v
	}
	all := []string{"a", "b", "c", "meta"}
	if err := WriteDir(context.Background(), dir, []File{file("a", "1"), file("b", "2"), file("meta", "m")}, all); err != nil {
		t.Fatal(err)
	}
	// A second set without b: b goes, c comes, nothing else is left.
	if err := WriteDir(context.Background(), dir, []File{file("a", "3"), file("c", "4"), file("meta", "n")}, all); err != nil {
		t.Fatal(err)
	}
	if got, want := names(), []string{"set", "set/a", "set/c", "set/meta"}; !slices.Equal(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a")); string(b) != "3" {
		t.Errorf("a holds %q", b)
	}
	// Interrupted: the directory is left as it was, no temporary remains.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := WriteDir(ctx, dir, []File{file("a", "5"), file("meta", "o")}, all)
	var fe *FileError
	if !errors.As(err, &fe) || fe.Name != "a" || !errors.Is(err, ErrInterrupted) {
		t.Errorf("interrupted: %v", err)
	}
	if got, want := names(), []string{"set", "set/a", "set/c", "set/meta"}; !slices.Equal(got, want) {
		t.Errorf("after an interrupt: %v, want %v", got, want)
	}
}

// TestWriteDirRoot: a file system's root has no directory beside it to
// write a set into first; it is refused in words, not by MkdirTemp's
// pattern error.
func TestWriteDirRoot(t *testing.T) {
	err := WriteDir(context.Background(), "/", []File{{"a", func(io.Writer) error { return nil }}}, nil)
	if err == nil || !strings.Contains(err.Error(), "root of its file system") {
		t.Errorf("WriteDir(/): %v", err)
	}
}
