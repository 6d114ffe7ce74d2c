//go:build unix

package atomicio

import (
	"os"
	"syscall"
)

// Lock takes an exclusive lock on the directory dir (created if need be),
// a flock on the directory itself, so that no lock file is left in it,
// waiting for another process that holds it, and returns the function
// that releases it. Processes that
// write a set of files into one directory under the lock leave one
// process's complete set, never a mixture.
func Lock(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
