package main

import (
	"os"
	"path/filepath"
)

// input is an input file and the flag that names it.
type input struct{ flag, path string }

// refuseOverwrite refuses, before any work, an output that is one of the
// inputs or would replace one: the same path, or the same file under
// another name (a link). The output dir's files are named by names; a
// non-empty file is an output of its own.
func refuseOverwrite(outFlag, dir string, names []string, inputs ...input) error {
	var outs []string
	for _, n := range names {
		outs = append(outs, filepath.Join(dir, n))
	}
	if outFlag != "out" && dir != "" {
		outs = []string{dir}
	}
	for _, in := range inputs {
		if in.path == "" {
			continue
		}
		ai, _ := filepath.Abs(in.path)
		si, errI := os.Stat(in.path)
		for _, o := range outs {
			ao, _ := filepath.Abs(o)
			same := ai == ao
			if so, err := os.Stat(o); !same && err == nil && errI == nil {
				same = os.SameFile(si, so)
			}
			if same {
				return badFlag(outFlag, dir, "would overwrite the input --"+in.flag+" "+in.path+" with "+filepath.Base(o)+"; write the results elsewhere")
			}
		}
	}
	return nil
}
