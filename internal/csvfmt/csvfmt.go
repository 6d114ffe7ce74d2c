// Package csvfmt formats numbers for the CSV files the commands write, so
// that every file spells them the same way.
package csvfmt

import (
	"math"
	"strconv"
)

// Float formats v in the shortest form that reads back to the same bits;
// NaN (a value that does not apply) is an empty field and infinities are
// "inf" and "-inf", which pandas, R and strconv.ParseFloat all read.
func Float(v float64) string {
	switch {
	case math.IsNaN(v):
		return ""
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
