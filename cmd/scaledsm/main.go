// Command scaledsm recovers low-rank matrices from corrupted linear
// measurements with the scaled subgradient method, and reproduces the
// experiments of Tong, Ma and Chi.
//
//	scaledsm <command> [flags]
//
// "scaledsm help" lists the commands, "scaledsm help <command>" (or
// "scaledsm <command> --help") a command's flags. Exit status: 0 when the
// command did its work (a solve at its iteration limit or stalled warns on
// stderr); 1 when a solve diverged or failed numerically; 2 for bad input or
// a problem too big for the machine's memory; 3 when an output could not be
// written (earlier results are kept); 130 on SIGINT, 143 on SIGTERM.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/dataio"
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
		{"demo", "recover a matrix from corrupted measurements, ScaledSM beside VanillaSM, in the terminal", runDemo},
		{"solve", "recover a matrix from a synthetic problem or from NumPy files", runSolve},
		{"background", "write a video's foreground masks frame by frame (background subtraction)", runBackground},
		{"video", "separate a large matrix (a video: pixels × frames) into a low-rank background and a foreground", runVideo},
		{"generate", "write a synthetic problem as NumPy .npy files", runGenerate},
		{"predict", "predict entries of L Rᵀ from the factors a solve wrote", runPredict},
		{"recommend", "list the best items for users from the model a solve of ratings or interactions wrote", runRecommendLists},
		{"update", "fold new ratings into a recommender's model without a refit, and write the updated model", runUpdate},
		{"table1", "measure Table 1: iterations of GD, ScaledGD, VanillaSM, ScaledSM against kappa", runTable1},
		{"overspec", "measure the over-specified rank study (beyond the paper): damping, random starts", runOverSpec},
		{"completion", "measure the matrix completion, robust PCA and photograph studies (beyond the paper)", runStudies},
		{"phase", "measure the phase study of robust PCA: the default method against PCP and ScaledGD with T_alpha", runPhase},
		{"experiment", "measure the recommender on real ratings (MovieLens 100k's splits, or a file) beside baselines", runExperiment},
		{"bench", "measure the time per iteration and peak memory against the floor", runBench},
		{"figure", "reproduce figure N of the paper: CSV, plots and report", runFigure},
		{"reproduce", "reproduce every figure of the paper", runReproduce},
		{"report", "rebuild the panels and index.html from the figures in a directory", runReport},
		{"version", "print the version and the git revision it was built from", runVersion},
	}
}

func main() {
	os.Exit(mainRanks(os.Args[1:]))
}

// started is when the command began (run sets it), from which a solve's
// wall time is counted.
var started time.Time

// Exit codes.
const (
	exitOK          = 0   // the command did its work
	exitFailed      = 1   // a solve failed: diverged, singular or another numerical failure
	exitBadInput    = 2   // a bad flag, file or data, or a problem too big for the machine
	exitOutput      = 3   // an output could not be written
	exitInterrupted = 130 // stopped by SIGINT (143 for SIGTERM: 128 + the signal's number)
)

// run executes the command line args and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitBadInput
	}
	name := args[0]
	switch name {
	case "--version", "-version", "-v":
		fmt.Fprintln(stdout, versionLine())
		return exitOK
	case "help", "-h", "--help", "-help":
		if len(args) == 1 || args[1] == "help" {
			usage(stdout)
			return exitOK
		}
		// "scaledsm help solve" is "scaledsm solve --help".
		name, args = args[1], []string{args[1], "--help"}
	}
	for _, c := range commands {
		if c.name != name {
			continue
		}
		// Each run starts from the default kernels (tests call run many
		// times), then SCALEDSM_KERNEL, then a command's --kernel.
		kernel.Use("auto")
		started = time.Now()
		err := checkRanks(c.name)
		if err == nil {
			err = kernelFromEnv()
		}
		if err == nil {
			disarm := catchSignals(c.name, stderr)
			err = c.run(args[1:], stdout, stderr)
			disarm()
		}
		return exit(c.name, err, stderr)
	}
	fmt.Fprintf(stderr, "scaledsm: unknown command %q (run \"scaledsm help\" for the list)\n", name)
	return exitBadInput
}

// exit prints the one line that says why a command failed, and returns its
// exit code.
func exit(name string, err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	var (
		ue usageError
		ie *scaledsm.InputError
		fe *dataio.FileError
		ex exitError
	)
	switch {
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "scaledsm %s: %v (run \"scaledsm %s --help\")\n", name, err, name)
		return exitBadInput
	case errors.As(err, &ex):
		fmt.Fprintf(stderr, "scaledsm %s: %v\n", name, err)
		if ex.code == exitInterrupted {
			return interruptCode()
		}
		return ex.code
	case errors.As(err, &ie), errors.As(err, &fe):
		fmt.Fprintf(stderr, "scaledsm %s: %v\n", name, err)
		return exitBadInput
	}
	fmt.Fprintf(stderr, "scaledsm %s: %v\n", name, err)
	return exitFailed
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "scaledsm recovers low-rank matrices from corrupted linear measurements")
	fmt.Fprintln(w, "with the scaled subgradient method (Tong, Ma and Chi).")
	fmt.Fprintln(w, "\nUsage:\n  scaledsm <command> [flags]\n\nCommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun \"scaledsm help <command>\" for a command's flags.")
}

// usageError is a bad command line: a flag's value or a stray argument.
// Its message names the flag; the exit line adds where to find help.
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

// outputError returns the error of an output that could not be written.
func outputError(flagName, path string, err error) error {
	return exitError{fmt.Errorf("--%s %s: %v", flagName, path, unwrapPath(err)), exitOutput}
}

// count returns "1 noun" or "n nouns".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// unwrapPath returns the reason of a *fs.PathError, whose path the message
// already names, or err itself.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("cannot %s: %w", pe.Op, pe.Err)
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return fmt.Errorf("cannot %s: %w", le.Op, le.Err)
	}
	return err
}

// newFlagSet returns a flag set for a subcommand whose usage, printed to w
// on --help, lists every flag with a double dash and its default.
func newFlagSet(name, synopsis string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(w)
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

// parseFlags parses args, rejecting positional arguments. A bad flag is one
// usage error naming it; --help prints the usage and returns flag.ErrHelp.
func parseFlags(fs *flag.FlagSet, args []string) error {
	out := fs.Output()
	fs.SetOutput(io.Discard) // the flag package would print the error and the whole usage
	err := fs.Parse(args)
	fs.SetOutput(out)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
		return err
	case err != nil:
		return usageError{flagMessage(err)}
	}
	// A value that is another flag of the command (--out --json, --out
	// -h) is a value forgotten: the flag package took the next flag as
	// the value.
	var taken error
	fs.Visit(func(f *flag.Flag) {
		v := f.Value.String()
		name, _, _ := strings.Cut(strings.TrimLeft(v, "-"), "=")
		isFlag := fs.Lookup(name) != nil || name == "h" || name == "help"
		if taken == nil && strings.HasPrefix(v, "-") && name != "" && isFlag {
			taken = usageError{fmt.Sprintf("--%s %s: needs a value (it took the flag %s as its value)", f.Name, v, v)}
		}
	})
	if taken != nil {
		return taken
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q (flags are written --name value)", fs.Arg(0))}
	}
	return nil
}

var (
	invalidValue = regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for (?:flag )?-(\S+): (.*)$`)
	notDefined   = regexp.MustCompile(`^flag provided but not defined: -(\S+)$`)
	needsValue   = regexp.MustCompile(`^flag needs an argument: -(\S+)$`)
)

// flagMessage words an error of the flag package as "--name value: reason".
func flagMessage(err error) string {
	msg := err.Error()
	if m := invalidValue.FindStringSubmatch(msg); m != nil {
		reason := m[3]
		if strings.HasSuffix(reason, "parse error") {
			reason = "not a valid value of this flag"
		}
		return fmt.Sprintf("--%s %s: %s", m[2], m[1], reason)
	}
	if m := notDefined.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("--%s: no such flag", m[1])
	}
	if m := needsValue.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("--%s: needs a value", m[1])
	}
	return msg
}

// setFlags returns the names of the flags given on the command line.
func setFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// flagValue returns the value of the named flag as given.
func flagValue(fs *flag.FlagSet, name string) string { return fs.Lookup(name).Value.String() }

// inputFlag turns a library *scaledsm.InputError into a usage error naming
// the flag that set the input (flags maps inputs to flags); other errors
// are returned as they are.
func inputFlag(err error, flags map[string]string) error {
	var ie *scaledsm.InputError
	if !errors.As(err, &ie) {
		return err
	}
	name, ok := flags[ie.Input]
	if !ok {
		return err
	}
	if ie.Value == nil {
		return usageError{fmt.Sprintf("--%s: %s", name, ie.Reason)}
	}
	return badFlag(name, ie.Value, ie.Reason)
}
