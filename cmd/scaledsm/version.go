package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// versionLine returns "scaledsm <module version> (<revision>[, modified],
// <time>) <go version> <os>/<arch>", from the build information that the
// go command writes into the binary.
func versionLine() string {
	version, rev, when, modified := "(devel)", "", "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	line := "scaledsm " + version
	switch {
	case rev != "":
		line += " (revision " + rev
		if modified {
			line += ", modified"
		}
		if when != "" {
			line += ", " + when
		}
		line += ")"
	default:
		line += " (no revision: built outside a git checkout, or with -buildvcs=false)"
	}
	return fmt.Sprintf("%s %s %s/%s", line, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func runVersion(args []string, stdout, _ io.Writer) error {
	fs := newFlagSet("version", "Prints the version of scaledsm: the module's version and the git revision it was built from.", stdout)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	fmt.Fprintln(stdout, versionLine())
	return nil
}
