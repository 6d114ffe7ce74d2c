package dataio

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// slowRating parses a line as the reader parses lines quick declines.
func slowRating(line, delim string, at [3]int, need int) (quickRating, bool) {
	q, err := record(splitFields(nil, strings.TrimRight(line, "\r"), delim), at, need)
	return q, err == nil
}

// checkQuick fails when quick accepts a line and parses it otherwise than
// the general path.
func checkQuick(t *testing.T, line, delim string, at [3]int) bool {
	need := max(at[0], at[1], at[2]) + 1
	q, ok := quick([]byte(line), delim, at, need)
	if !ok {
		return false
	}
	s, sok := slowRating(line, delim, at, need)
	if !sok || q.user != s.user || q.item != s.item || math.Float64bits(q.value) != math.Float64bits(s.value) {
		t.Fatalf("%q (delim %q, columns %v): quick %+v, the general path %+v (%v)", line, delim, at, q, s, sok)
	}
	return true
}

// TestQuickIsTheGeneralPath: on lines of random numbers (ratings of up to
// 19 digits, points anywhere, signs, blanks, quotes, exponents, extra
// fields, other column orders) quick accepts the plain ones and gives
// exactly what strconv gives for splitFields's fields; it declines the
// others. It fails when quick's rounding is not strconv's: checked with a
// multiplication by 10^-f in place of the division.
func TestQuickIsTheGeneralPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	number := func() string {
		var b strings.Builder
		if rng.IntN(4) == 0 {
			b.WriteByte('-')
		}
		n := 1 + rng.IntN(19)
		point := rng.IntN(n + 4)
		for k := range n {
			if k == point {
				b.WriteByte('.')
			}
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
		switch rng.IntN(40) {
		case 0:
			b.WriteString("e3")
		case 1:
			b.WriteString(".")
		case 2:
			return "+" + b.String()
		}
		return b.String()
	}
	pad := func(s string) string {
		switch rng.IntN(20) {
		case 0:
			return " " + s + "  "
		case 1:
			return "\"" + s + "\""
		case 2:
			return "\t" + s
		}
		return s
	}
	accepted := 0
	for _, delim := range []string{",", "\t", ";", "::"} {
		for range 20000 {
			at := [3]int{0, 1, 2}
			if rng.IntN(3) == 0 {
				at = [3]int{2, 0, 1}
			}
			fields := []string{pad(strconv.Itoa(rng.IntN(1e6))), pad(strconv.Itoa(rng.IntN(1e4) - 10)), pad(number())}
			if at[0] == 2 {
				fields = []string{fields[1], fields[2], fields[0]}
			}
			if rng.IntN(5) == 0 {
				fields = append(fields, "1997-01-01")
			}
			line := strings.Join(fields, delim)
			if rng.IntN(10) == 0 {
				line += "\r"
			}
			if checkQuick(t, line, delim, at) {
				accepted++
			}
		}
	}
	if accepted < 40000 {
		t.Errorf("quick accepted %d of 80000 lines, most of them plain", accepted)
	}
	for _, line := range []string{"1,2,9007199254740993", "1,2,0.1", "-0,3,-0", "1,2,3.", "1,2,.5", "7,8,2.5\r"} {
		checkQuick(t, line, ",", [3]int{0, 1, 2})
	}
	for _, line := range []string{"1,2,", ",2,3", "1,2", "1,2,3e0", "1,2,1_0", "1,\"2,3\",4", "1,2,12345678901234567890", "1 2 3"} {
		if _, ok := quick([]byte(line), ",", [3]int{0, 1, 2}, 3); ok {
			t.Errorf("quick accepted %q", line)
		}
	}
}

// FuzzQuick: whatever the line, quick accepts only what the general path
// parses, and parses it the same.
func FuzzQuick(f *testing.F) {
	for _, s := range []string{"1,2,3", "10,20,4.5", "-3,4,-0.25\r", "1,2,3,x", " 1 , 2 , 3 ", "1,2,0.30000000000000004"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		checkQuick(t, line, ",", [3]int{0, 1, 2})
		checkQuick(t, line, "::", [3]int{1, 0, 2})
	})
}
