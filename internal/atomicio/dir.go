package atomicio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// A File is a file of a set that WriteDir writes: its name, and how to
// write it.
type File struct {
	Name  string
	Write func(io.Writer) error
}

// A FileError is a file of a set that could not be written.
type FileError struct {
	Name string
	Err  error
}

func (e *FileError) Error() string { return e.Name + ": " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// ErrInterrupted is the error of a write that stopped because its context
// was done.
var ErrInterrupted = errors.New("interrupted")

// WriteDir writes files into dir as one set: into a new directory beside
// dir, then moved in once complete (renames, on one file system, so the
// data is written once), after the files of an earlier set, named in
// others, that the new set lacks are removed. The last file of files goes
// first and comes back last: a directory without it holds no complete set.
// A write stops once ctx is done, with a *FileError wrapping
// ErrInterrupted, and dir is left as it was.
func WriteDir(ctx context.Context, dir string, files []File, others []string) error {
	dir = filepath.Clean(dir)
	if filepath.Dir(dir) == dir { // no directory beside it to write the set in first
		return fmt.Errorf("is the root of its file system: give a directory below it")
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".tmp-*")
	if err != nil {
		return err
	}
	defer Track(tmp)()
	defer os.RemoveAll(tmp)
	for _, f := range files {
		err := WriteFile(filepath.Join(tmp, f.Name), func(w io.Writer) error {
			return f.Write(ctxWriter{ctx, w})
		})
		if ctx.Err() != nil {
			return &FileError{f.Name, ErrInterrupted}
		}
		if err != nil {
			return &FileError{f.Name, err}
		}
	}
	unlock, err := Lock(dir)
	if err != nil {
		return err
	}
	defer unlock()
	return moveInto(tmp, dir, files, others)
}

// moveInto moves the files from the directory tmp into dir: tmp itself
// when dir does not exist, otherwise file by file (the last one last),
// after removing those of others that files lack and the last one.
func moveInto(tmp, dir string, files []File, others []string) error {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		if err := os.Chmod(tmp, 0o755); err != nil {
			return err
		}
		return os.Rename(tmp, dir)
	}
	keep := map[string]bool{}
	for _, f := range files {
		keep[f.Name] = true
	}
	last := files[len(files)-1].Name
	for _, n := range append([]string{last}, others...) {
		if !keep[n] || n == last {
			if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
	}
	for _, f := range files {
		if err := os.Rename(filepath.Join(tmp, f.Name), filepath.Join(dir, f.Name)); err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	return nil
}

// ctxWriter fails its writes once ctx is done, so that a long write stops
// promptly on a signal.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, ErrInterrupted
	}
	return c.w.Write(p)
}
