package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateDoc = flag.Bool("update", false, "rewrite docs/cli.md's generated section from the commands' --help")

// The generated part of docs/cli.md: every command's --help, as it prints.
const (
	docBegin = "<!-- begin generated: every command's --help; go test ./cmd/scaledsm -run TestCLIDoc -update rewrites it -->"
	docEnd   = "<!-- end generated -->"
)

// cliReference returns the generated section: for each command, its
// usage as --help prints it.
func cliReference(t *testing.T) string {
	var b strings.Builder
	b.WriteString(docBegin + "\n\n")
	for _, c := range commands {
		args := []string{c.name, "--help"}
		if c.name == "experiment" {
			args = []string{c.name, "movielens", "--help"}
		}
		var out, errw bytes.Buffer
		if code := run(args, &out, &errw); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errw.String())
		}
		fmt.Fprintf(&b, "### `scaledsm %s`\n\n```text\n%s```\n\n", strings.Join(args[:len(args)-1], " "), out.String())
	}
	b.WriteString(docEnd)
	return b.String()
}

// TestCLIDoc fails when docs/cli.md's reference of the flags differs from
// what the commands print: run it with -update after changing a flag.
func TestCLIDoc(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "cli.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	i, j := strings.Index(text, docBegin), strings.Index(text, docEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no generated section (%q ... %q)", path, docBegin, docEnd)
	}
	want := cliReference(t)
	if got := text[i : j+len(docEnd)]; got != want {
		if *updateDoc {
			if err := os.WriteFile(path, []byte(text[:i]+want+text[j+len(docEnd):]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("%s is stale: its flags differ from the commands' --help; run go test ./cmd/scaledsm -run TestCLIDoc -update", path)
	}
}
