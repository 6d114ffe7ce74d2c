// Package cputime reads the CPU time of the process. On a shared machine,
// work per CPU second is a steadier measure of code than work per
// wall-clock second, which counts the time other processes hold the cores.
package cputime
