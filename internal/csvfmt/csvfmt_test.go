package csvfmt

import (
	"errors"
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestFloat(t *testing.T) {
	for _, v := range []float64{0, 1, -2.5, 1e-300, math.Pi, 9.974136119821071e-13, math.MaxFloat64, math.Inf(1), math.Inf(-1)} {
		s := Float(v)
		back, err := strconv.ParseFloat(s, 64)
		if err != nil || back != v {
			t.Errorf("Float(%v) = %q reads back as %v, %v", v, s, back, err)
		}
	}
	if s := Float(math.NaN()); s != "" {
		t.Errorf("Float(NaN) = %q, want empty", s)
	}
}

// TestAppendFloat: AppendFloat appends what Float returns.
func TestAppendFloat(t *testing.T) {
	for _, v := range []float64{0, -2.5, math.Pi, 1e300, math.NaN(), math.Inf(1), math.Inf(-1)} {
		if got := string(AppendFloat([]byte("x,"), v)); got != "x,"+Float(v) {
			t.Errorf("AppendFloat(%v) = %q, want %q", v, got, "x,"+Float(v))
		}
	}
}

// TestWriteLines: the lines made in blocks on the cores are written in
// order, whatever their number against the blocks' and the cores'.
func TestWriteLines(t *testing.T) {
	line := func(dst []byte, k int) []byte {
		dst = strconv.AppendInt(dst, int64(k), 10)
		dst = append(dst, ',')
		return append(AppendFloat(dst, float64(k)/7), '\n')
	}
	round := 2 * runtime.GOMAXPROCS(0) * 8192 // the lines of one round of blocks
	for _, n := range []int{0, 1, 8191, 8192, 8193, 5*8192 + 3, round, round + 1, 3*round + 5} {
		var want, got strings.Builder
		for k := range n {
			want.Write(line(nil, k))
		}
		if err := WriteLines(&got, n, line); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%d lines: %d bytes written, want %d", n, got.Len(), want.Len())
		}
	}
	if err := WriteLines(failing{}, 3, line); err == nil {
		t.Error("a failing writer: no error")
	}
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("disk full") }
