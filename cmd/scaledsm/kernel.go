package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/scaledsm/scaledsm/internal/kernel"
)

// kernelEnv names the environment variable that selects the kernels for
// every command, as --kernel does for one. (Package kernel reads it at
// start-up; the command reports a bad value.)
const kernelEnv = kernel.EnvVar

// kernelNames lists the values of --kernel and SCALEDSM_KERNEL.
const kernelNames = "auto, generic, avx2 or avx512"

// kernelFromEnv selects the kernels named by SCALEDSM_KERNEL, if set.
func kernelFromEnv() error {
	name, ok := os.LookupEnv(kernelEnv)
	if !ok || name == "" {
		return nil
	}
	if err := kernel.Use(name); err != nil {
		return usageError{fmt.Sprintf("%s=%s: %s", kernelEnv, name, kernelReason(err))}
	}
	return nil
}

// kernelFlag registers --kernel on fs.
func kernelFlag(fs *flag.FlagSet) *string {
	return fs.String("kernel", "", "inner loops: "+kernelNames+" (default auto, the widest the CPU runs, or $"+kernelEnv+");\n"+
		"generic is the portable Go code every platform has")
}

// useKernel selects the kernels named by --kernel, when given.
func useKernel(name string) error {
	if name == "" {
		return nil
	}
	if err := kernel.Use(name); err != nil {
		return badFlag("kernel", name, kernelReason(err))
	}
	return nil
}

// kernelReason words a kernel.Use error for a flag or variable message.
func kernelReason(err error) string {
	msg := strings.TrimPrefix(err.Error(), "kernel: ")
	return fmt.Sprintf("%s; this machine runs %s", msg, strings.Join(kernel.Available(), ", "))
}
