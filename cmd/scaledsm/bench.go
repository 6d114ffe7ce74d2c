package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/scaledsm/scaledsm/bench"
	"github.com/scaledsm/scaledsm/internal/kernel"
)

// runBench wires the bench command to package bench: the parent measures
// the cases, each in a child process, this command again with --child.
func runBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", bench.Synopsis, stdout)
	asJSON := fs.Bool("json", false, "print one JSON array of objects instead of the table")
	c := bench.Config{Progress: stderr}
	fs.BoolVar(&c.Quick, "quick", false, "small sizes, for a check in seconds (the targets are those of the paper's sizes)")
	cases := fs.String("cases", strings.Join(bench.Cases, ","), "the cases to run, comma-separated")
	fs.IntVar(&c.Iters, "iters", 0, "iterations timed per case (default 12 for sensing, 1000 for quadratic sampling,\n6 batched and 8 single iterations for the sweep)")
	large := fs.Bool("large", false, "also run the completion cases of 10^8 entries (about 4 GB each)")
	fs.StringVar(&c.Membw, "membw", "", "a streaming-read program to run before each case (built from\ntools/membw.c; it prints \"X GB/s read\"): the floor is the\nfaster of its rate and the bench's own read")
	fs.StringVar(&c.LIBMF, "libmf", "", "LIBMF's mf-train: also run the libmf cases, scaledsm and LIBMF side by side: libmf on one\ncompletion problem of 10^6 entries, time per iteration (epoch) and peak memory; libmf-ratings on 10^6\nsynthetic ratings, the recommender against mf-train -k 20 -l2 0.05 -t 50, whole time, peak memory and\ntest RMSE (--cases libmf or libmf-ratings alone looks for mf-train on the PATH; without it a case is\na note)")
	fs.StringVar(&c.Python, "python", "", "the Python with NumPy that times the sweep's tuned-BLAS anchor\n(default: python3, then /usr/bin/python3; without NumPy the anchor is a note)")
	kernelName := kernelFlag(fs)
	// --child CASE runs one case in this process: the parent re-executes
	// itself with it for each case. It is internal, left out of the help.
	child := fs.String("child", "", "internal")
	membwGBs := fs.Float64("membw-gbs", 0, "internal")
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: scaledsm bench [flags]\n\n%s\n\nFlags:\n", bench.Synopsis)
		fs.VisitAll(func(f *flag.Flag) {
			if f.Name != "child" && f.Name != "membw-gbs" {
				printFlag(w, f)
			}
		})
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := useKernel(*kernelName); err != nil {
		return err
	}
	if c.Iters < 0 || c.Iters == 0 && setFlags(fs)["iters"] { // 0 given is not the default
		return badFlag("iters", c.Iters, "must be positive")
	}
	if c.Membw != "" { // before the first case, not after it
		if _, err := exec.LookPath(c.Membw); err != nil {
			return badFlag("membw", c.Membw, "cannot run it: "+unwrapPath(err).Error())
		}
	}
	if *child != "" {
		res, err := bench.RunCase(*child, bench.Options{Quick: c.Quick, Iters: c.Iters, MembwGBs: *membwGBs})
		if err != nil {
			return badFlag("child", *child, err.Error())
		}
		return json.NewEncoder(stdout).Encode(res)
	}
	var err error
	if c.Cases, err = bench.ParseCases(*cases, c.LIBMF, *large); err != nil {
		return badFlag("cases", *cases, err.Error())
	}
	if c.Exe, err = os.Executable(); err != nil {
		c.Exe = os.Args[0]
	}
	c.Kernel = kernel.Active()
	start := time.Now()
	results, err := bench.Run(c)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(results)
	}
	bench.PrintTable(stdout, results, time.Since(start))
	return nil
}
