// Package csvfmt formats numbers for the CSV files the commands write, so
// that every file spells them the same way.
package csvfmt

import (
	"io"
	"math"
	"runtime"
	"strconv"

	"github.com/scaledsm/scaledsm/internal/par"
)

// Float formats v in the shortest form that reads back to the same bits;
// NaN (a value that does not apply) is an empty field and infinities are
// "inf" and "-inf", which pandas, R and strconv.ParseFloat all read.
func Float(v float64) string { return string(AppendFloat(nil, v)) }

// AppendFloat appends Float(v) to dst.
func AppendFloat(dst []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return dst
	case math.IsInf(v, 1):
		return append(dst, "inf"...)
	case math.IsInf(v, -1):
		return append(dst, "-inf"...)
	}
	return strconv.AppendFloat(dst, v, 'g', -1, 64)
}

// WriteLines writes n lines to w, line k made by line(dst, k) appending
// it to dst (its newline included): blocks of lines made on the cores,
// written in order. A million test ratings and their predictions took
// 0.33 s through fmt.Fprintf, a line at a time.
func WriteLines(w io.Writer, n int, line func(dst []byte, k int) []byte) error {
	const block = 1 << 13
	workers := runtime.GOMAXPROCS(0)
	bufs := make([][]byte, 2*workers)
	for first := 0; first < n; first += len(bufs) * block {
		blocks := min(len(bufs), (n-first+block-1)/block)
		par.Do(workers, blocks, func(b int) {
			buf := bufs[b][:0]
			for k := first + b*block; k < min(n, first+(b+1)*block); k++ {
				buf = line(buf, k)
			}
			bufs[b] = buf
		})
		for _, buf := range bufs[:blocks] {
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
	}
	return nil
}
