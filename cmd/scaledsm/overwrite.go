package main

import (
	"os"
	"path/filepath"
)

// input is an input file and the flag that names it.
type input struct{ flag, path string }

// refuseOverwrite refuses, before any work, an output that is one of the
// inputs or would replace one: the same path, or the same file under
// another name (a link). outputs are the paths that --flag value writes.
func refuseOverwrite(flag, value string, outputs []string, inputs ...input) error {
	for _, in := range inputs {
		if in.path == "" {
			continue
		}
		ai, _ := filepath.Abs(in.path)
		si, errI := os.Stat(in.path)
		for _, o := range outputs {
			ao, _ := filepath.Abs(o)
			same := ai == ao
			if so, err := os.Stat(o); !same && err == nil && errI == nil {
				same = os.SameFile(si, so)
			}
			if same {
				what := "would overwrite the input --" + in.flag + " " + in.path
				if o != value {
					what += " with its " + filepath.Base(o)
				}
				return badFlag(flag, value, what+"; write the results elsewhere")
			}
		}
	}
	return nil
}

// within returns the paths of the names in dir.
func within(dir string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = filepath.Join(dir, n)
	}
	return out
}
