// Package atomicio writes files so that a reader never sees part of one:
// each is written to a temporary name beside it, synced, then renamed.
package atomicio

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// WriteFile writes a file through write: to a temporary file in the same
// directory, renamed to path only once complete and synced, so that path
// holds either its old content or the whole new one, never part of it. On
// any failure the temporary file is removed.
func WriteFile(path string, write func(io.Writer) error) error {
	tmp, err := WriteTemp(path, write)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// WriteTemp writes a file through write to a temporary file beside path,
// complete and synced, and returns its name. On any failure the temporary
// file is removed.
func WriteTemp(path string, write func(io.Writer) error) (tmp string, err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<16)
	if err = write(bw); err != nil {
		return "", err
	}
	if err = bw.Flush(); err != nil {
		return "", err
	}
	if err = f.Sync(); err != nil {
		return "", err
	}
	if err = f.Close(); err != nil {
		return "", err
	}
	if err = os.Chmod(f.Name(), 0o644); err != nil {
		return "", err
	}
	return f.Name(), nil
}

// Set writes several files that belong together: each goes to a
// temporary name, and all are renamed only once every one is complete, so
// that a failure leaves the old set, not a mixture, and no temporary file.
type Set struct {
	paths, temps []string
}

// Add writes the file path through write, to a temporary name until
// commit. On failure it removes every temporary file of the set.
func (o *Set) Add(path string, write func(io.Writer) error) error {
	tmp, err := WriteTemp(path, write)
	if err != nil {
		o.Discard()
		return err
	}
	o.paths = append(o.paths, path)
	o.temps = append(o.temps, tmp)
	return nil
}

// Commit renames the files into place, in the order they were added.
func (o *Set) Commit() error {
	var errs []error
	for i, tmp := range o.temps {
		if err := os.Rename(tmp, o.paths[i]); err != nil {
			os.Remove(tmp)
			errs = append(errs, err)
		}
	}
	o.paths, o.temps = nil, nil
	return errors.Join(errs...)
}

// Discard removes the temporary files written so far.
func (o *Set) Discard() {
	for _, tmp := range o.temps {
		os.Remove(tmp)
	}
	o.paths, o.temps = nil, nil
}

// IsTemp reports whether a file name is one of WriteTemp's temporary
// names.
func IsTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-")
}
