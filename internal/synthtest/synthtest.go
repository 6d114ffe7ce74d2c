// Package synthtest draws the synthetic problems of package synth for
// tests, failing the test on an error.
package synthtest

import (
	"testing"

	"github.com/scaledsm/scaledsm/synth"
)

// NewDraw returns the draw of c.
func NewDraw(t testing.TB, c synth.Config) *synth.Draw {
	t.Helper()
	d, err := synth.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// InstanceOf returns the instance of d with the setting s.
func InstanceOf(t testing.TB, d *synth.Draw, s synth.Setting) *synth.Instance {
	t.Helper()
	in, err := d.Instance(s)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// Instance returns the instance of the draw of c with the setting s.
func Instance(t testing.TB, c synth.Config, s synth.Setting) *synth.Instance {
	t.Helper()
	return InstanceOf(t, NewDraw(t, c), s)
}
