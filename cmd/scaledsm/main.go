// Command scaledsm recovers low-rank matrices from corrupted linear
// measurements with the scaled subgradient method, and reproduces the
// experiments of Tong, Ma and Chi.
//
// Usage:
//
//	scaledsm <command> [flags]
//
// Run "scaledsm help" for the commands and "scaledsm <command> --help" for
// a command's flags.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/scaledsm/scaledsm/internal/kernel"
)

// command is one subcommand of scaledsm.
type command struct {
	name, summary string
	run           func(args []string, stdout, stderr io.Writer) error
}

var commands []command

func init() {
	commands = []command{
		{"demo", "recover a matrix from corrupted measurements and show how", runDemo},
		{"solve", "recover a matrix from a synthetic problem or from NumPy files", runSolve},
		{"generate", "write a synthetic problem as NumPy .npy files", runGenerate},
		{"table1", "measure Table 1: iterations of GD, ScaledGD, VanillaSM, ScaledSM against kappa", runTable1},
		{"bench", "measure the time per iteration and peak memory against the floor", runBench},
		{"figure", "reproduce figure N of the paper: CSV, plots and report", runFigure},
		{"reproduce", "reproduce all six figures of the paper", runReproduce},
		{"report", "rebuild the panels and index.html from the figures in a directory", runReport},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// errUsage marks an error that was already reported with the usage.
var errUsage = errors.New("usage")

// run executes the command line args and returns the exit code: 0 on
// success, 2 for a bad command line, 1 for any other failure.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		// Each run starts from the default kernels (tests call run many
		// times), then SCALEDSM_KERNEL, then a command's --kernel.
		kernel.Use("auto")
		err := kernelFromEnv()
		if err == nil {
			err = c.run(args[1:], stdout, stderr)
		}
		switch {
		case err == nil, errors.Is(err, flag.ErrHelp):
			return 0
		case errors.Is(err, errUsage):
			return 2
		}
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "scaledsm %s: %v\n", c.name, err)
			return 2
		}
		fmt.Fprintf(stderr, "scaledsm %s: %v\n", c.name, err)
		var ex exitError
		if errors.As(err, &ex) {
			return ex.code
		}
		return 1
	}
	fmt.Fprintf(stderr, "scaledsm: unknown command %q (run \"scaledsm help\" for the list)\n", args[0])
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "scaledsm recovers low-rank matrices from corrupted linear measurements")
	fmt.Fprintln(w, "with the scaled subgradient method (Tong, Ma and Chi).")
	fmt.Fprintln(w, "\nUsage:\n  scaledsm <command> [flags]\n\nCommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun \"scaledsm <command> --help\" for a command's flags.")
}

// usageError is a bad command line: a flag's value or a stray argument.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// badFlag returns the usage error for the value of flag name.
func badFlag(name string, value any, reason string) error {
	return usageError{fmt.Sprintf("--%s %v: %s", name, value, reason)}
}

// exitError carries a specific exit code.
type exitError struct {
	err  error
	code int
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }

// newFlagSet returns a flag set for a subcommand whose usage lists every
// flag with a double dash and its default.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: scaledsm %s [flags]\n\n%s\n\nFlags:\n", name, synopsis)
		fs.VisitAll(func(f *flag.Flag) { printFlag(w, f) })
	}
	return fs
}

// printFlag prints a flag's line of a usage message, with its default.
func printFlag(w io.Writer, f *flag.Flag) {
	kind, help := flag.UnquoteUsage(f)
	line := "  --" + f.Name
	if kind != "" {
		line += " " + kind
	}
	fmt.Fprintln(w, line)
	help = strings.ReplaceAll(help, "\n", "\n    \t")
	if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && !strings.Contains(help, "(default") {
		help += fmt.Sprintf(" (default %s)", f.DefValue)
	}
	fmt.Fprintf(w, "    \t%s\n", help)
}

// parseFlags parses args, rejecting positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage // the flag package has printed the error and usage
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q (flags are written --name value)", fs.Arg(0))}
	}
	return nil
}

// setFlags returns the names of the flags given on the command line.
func setFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}
