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
	"sync"
	"sync/atomic"
)

// WriteFile writes a file through write: to a temporary file in the same
// directory, renamed to path only once complete and synced, so that path
// holds either its old content or the whole new one, never part of it. On
// any failure the temporary file is removed.
func WriteFile(path string, write func(io.Writer) error) error {
	return writeFile(path, write, true)
}

// WriteFileUnsynced is WriteFile without the sync: a process that stops
// (or is killed) still leaves path old or whole, but a machine that stops
// may lose the latest files. It is for many small files, such as a video's
// masks, where a sync each would cost more than the work that made them.
func WriteFileUnsynced(path string, write func(io.Writer) error) error {
	return writeFile(path, write, false)
}

func writeFile(path string, write func(io.Writer) error, sync bool) error {
	tmp, err := writeTemp(path, write, sync)
	if err != nil {
		return err
	}
	tempsMu.Lock()
	defer tempsMu.Unlock()
	delete(temps, tmp)
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// WriteTemp writes a file through write to a temporary file beside path
// (creating path's directory if need be), complete and synced, and returns
// its name. On any failure the temporary
// file is removed.
func WriteTemp(path string, write func(io.Writer) error) (tmp string, err error) {
	return writeTemp(path, write, true)
}

func writeTemp(path string, write func(io.Writer) error, sync bool) (tmp string, err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	// Missing parent directories are created, as mkdir -p would.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return "", err
	}
	forget := Track(f.Name())
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			forget()
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<16)
	if err = write(bw); err != nil {
		return "", err
	}
	if err = bw.Flush(); err != nil {
		return "", err
	}
	if sync {
		if err = f.Sync(); err != nil {
			return "", err
		}
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

// AddAll is Add for several files, written on up to workers goroutines
// at once (one file's sync beside another's writing) and added in their
// order. On a failure it starts no other file, removes every temporary
// file of the set and returns the error of the first file that failed.
func (o *Set) AddAll(paths []string, writes []func(io.Writer) error, workers int) error {
	tmps, errs := make([]string, len(paths)), make([]error, len(paths))
	sem := make(chan struct{}, max(workers, 1))
	var wg sync.WaitGroup
	var failed atomic.Bool
	for j := range paths {
		sem <- struct{}{}
		if failed.Load() {
			<-sem
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			if tmps[j], errs[j] = WriteTemp(paths[j], writes[j]); errs[j] != nil {
				failed.Store(true)
			}
		})
	}
	wg.Wait()
	for j, err := range errs {
		if err == nil {
			o.paths, o.temps = append(o.paths, paths[j]), append(o.temps, tmps[j])
		}
	}
	for _, err := range errs {
		if err != nil {
			o.Discard()
			return err
		}
	}
	return nil
}

// Commit renames the files into place, in the order they were added.
func (o *Set) Commit() error {
	// RemoveTemps waits for the renames: a set is never left half in.
	tempsMu.Lock()
	defer tempsMu.Unlock()
	for _, tmp := range o.temps {
		delete(temps, tmp)
	}
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
	tempsMu.Lock()
	defer tempsMu.Unlock()
	for _, tmp := range o.temps {
		os.Remove(tmp)
		delete(temps, tmp)
	}
	o.paths, o.temps = nil, nil
}

// IsTemp reports whether a file name is one of WriteTemp's temporary
// names.
func IsTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-")
}

var (
	tempsMu sync.Mutex
	temps   = map[string]bool{} // the temporary files and directories alive
)

// Track records a temporary file or directory for RemoveTemps, until the
// returned function is called.
func Track(path string) (forget func()) {
	tempsMu.Lock()
	temps[path] = true
	tempsMu.Unlock()
	return func() {
		tempsMu.Lock()
		delete(temps, path)
		tempsMu.Unlock()
	}
}

// RemoveTemps removes every temporary file and directory still alive, for
// a process about to exit on a signal: a Set's commit under way finishes
// first, so that its files are all in place or none is. It leaves the
// lock taken, so that no commit starts after it.
func RemoveTemps() {
	tempsMu.Lock()
	for p := range temps {
		os.RemoveAll(p)
	}
	clear(temps)
}
