package dataio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestReadIntsNumPy reads integer arrays that NumPy wrote (see
// testdata/ints/mkints.py): every width, signedness and byte order, and a
// Fortran-order matrix, give 0..5 in row-major order.
func TestReadIntsNumPy(t *testing.T) {
	want := []int64{0, 1, 2, 3, 4, 5}
	for _, name := range []string{"i1", "u1", "le_i2", "be_u2", "le_i4", "be_i4", "le_u4", "le_i8", "be_i8", "le_u8", "i8_c_3x2", "i4_f_3x2"} {
		data, shape, err := ReadInts(filepath.Join("testdata", "ints", name+".npy"))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !slices.Equal(data, want) {
			t.Errorf("%s: %v, want %v", name, data, want)
		}
		if strings.Contains(name, "3x2") != (len(shape) == 2) {
			t.Errorf("%s: shape %v", name, shape)
		}
	}
	data, _, err := ReadInts("testdata/ints/neg_i2.npy")
	if err != nil || !slices.Equal(data, []int64{0, 1, -1, 3}) {
		t.Errorf("neg_i2: %v, %v", data, err)
	}
	for name, reason := range map[string]string{"bool": "bool", "f8": "float"} {
		_, _, err := ReadInts(filepath.Join("testdata", "ints", name+".npy"))
		if err == nil || !strings.Contains(err.Error(), reason) || !strings.Contains(err.Error(), "integers") {
			t.Errorf("%s: error %v, want one naming %s and asking for integers", name, err, reason)
		}
	}
}

// writeFile writes b to a file in dir.
func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func int64s(t *testing.T, v ...int64) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteInt64(&b, []int{len(v)}, v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func float64s(t *testing.T, shape []int, v ...float64) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteFloat64(&b, shape, v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestLoadEntries reads COO triplets, and refuses each kind of bad input
// with an error naming the file and the element.
func TestLoadEntries(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	if err := WriteInt32(&b, []int{3}, []int32{2, 0, 1}); err != nil {
		t.Fatal(err)
	}
	rows := writeFile(t, dir, "rows.npy", b.Bytes())
	cols := writeFile(t, dir, "cols.npy", int64s(t, 0, 3, 1))
	vals := writeFile(t, dir, "vals.npy", float64s(t, []int{3}, 1.5, -2, 3))
	f := EntryFiles{Rows: rows, Cols: cols, Values: vals, N1: 3, N2: 4}
	r, c, v, err := LoadEntries(f)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r, []int32{2, 0, 1}) || !slices.Equal(c, []int32{0, 3, 1}) || !slices.Equal(v, []float64{1.5, -2, 3}) {
		t.Errorf("got %v %v %v", r, c, v)
	}
	if m, err := f.Size(); m != 3 || err != nil {
		t.Errorf("Size = %d, %v", m, err)
	}

	bad := []struct {
		name  string
		edit  func(f *EntryFiles)
		wants []string
	}{
		{"column outside", func(f *EntryFiles) { f.N2 = 3 }, []string{"cols.npy", "entry [1] is 3", "outside the 3 columns"}},
		{"negative", func(f *EntryFiles) { f.Cols = writeFile(t, dir, "neg.npy", int64s(t, 0, -1, 1)) }, []string{"neg.npy", "entry [1] is -1"}},
		{"float indices", func(f *EntryFiles) { f.Rows = vals }, []string{"rows file", "float", "integers"}},
		{"bool indices", func(f *EntryFiles) { f.Rows = "testdata/ints/bool.npy" }, []string{"bool", "integers"}},
		{"length", func(f *EntryFiles) { f.Cols = writeFile(t, dir, "short.npy", int64s(t, 0, 1)) }, []string{"short.npy", "2 elements", "same length"}},
		{"NaN value", func(f *EntryFiles) { f.Values = writeFile(t, dir, "nan.npy", float64s(t, []int{3}, 1, math.NaN(), 2)) }, []string{"nan.npy", "entry [1] is NaN"}},
		{"Inf value", func(f *EntryFiles) { f.Values = writeFile(t, dir, "inf.npy", float64s(t, []int{3}, 1, 2, math.Inf(1))) }, []string{"entry [2] is +Inf"}},
		{"two dimensions", func(f *EntryFiles) { f.Values = writeFile(t, dir, "mat.npy", float64s(t, []int{3, 1}, 1, 2, 3)) }, []string{"shape (3, 1)", "one dimension"}},
		{"int values", func(f *EntryFiles) { f.Values = cols }, []string{"values file", "unsupported dtype"}},
		{"huge uint64", func(f *EntryFiles) { f.Rows = writeFile(t, dir, "u8.npy", hugeU8(t)) }, []string{"u8.npy", "entry [1] exceeds 2^63"}},
	}
	for _, c := range bad {
		g := f
		c.edit(&g)
		_, _, _, err := LoadEntries(g)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.wants {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", c.name, err, w)
			}
		}
	}
}

// hugeU8 returns a uint64 array holding 1, 2^64-1, 0.
func hugeU8(t *testing.T) []byte {
	var b bytes.Buffer
	if err := WriteHeader(&b, Header{Dtype: "<u8", Shape: []int{3}}); err != nil {
		t.Fatal(err)
	}
	for _, v := range []uint64{1, math.MaxUint64, 0} {
		b.Write(binary.LittleEndian.AppendUint64(nil, v))
	}
	return b.Bytes()
}

// TestReadRatings reads a MovieLens-layout file with its columns in another
// order: the ids map to indices in increasing order of id.
func TestReadRatings(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "r.csv", []byte("timestamp,movieId,userId,rating\n9,50,7,4.5\n9,10,3,1\n\n9,50,3,2.5\n"))
	rt, err := ReadRatings(p)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rt.RowIDs, []int64{3, 7}) || !slices.Equal(rt.ColIDs, []int64{10, 50}) {
		t.Errorf("ids %v %v", rt.RowIDs, rt.ColIDs)
	}
	if !slices.Equal(rt.Rows, []int32{1, 0, 0}) || !slices.Equal(rt.Cols, []int32{1, 0, 1}) || !slices.Equal(rt.Values, []float64{4.5, 1, 2.5}) {
		t.Errorf("entries %v %v %v", rt.Rows, rt.Cols, rt.Values)
	}
	// Ids of a wide range take the search rather than the table.
	wide, err := ReadRatings(writeFile(t, dir, "wide.csv", []byte("userId,movieId,rating\n1099511627776,-5,1\n-7,3,2\n1099511627776,3,3\n")))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(wide.RowIDs, []int64{-7, 1 << 40}) || !slices.Equal(wide.ColIDs, []int64{-5, 3}) ||
		!slices.Equal(wide.Rows, []int32{1, 0, 1}) || !slices.Equal(wide.Cols, []int32{0, 1, 1}) {
		t.Errorf("wide ids: %+v", wide)
	}
	if n, err := RatingsSize(p); err != nil || n < 4 {
		t.Errorf("RatingsSize = %d, %v", n, err)
	}
	lines, err := RecordLines(p, Layout{}, 0, 2)
	if err != nil || !slices.Equal(lines, []int{2, 5}) {
		t.Errorf("RecordLines = %v, %v; want [2 5] (a blank line skipped)", lines, err)
	}

	for body, want := range map[string]string{
		"userId,rating\n1,2\n":                    `line 1: the header "userId,rating" has no item column`,
		"userId,movieId,rating\n1,2,3\n1,2\n":     "line 3: 2 fields, want 3 (the rating in column 3)",
		"userId,movieId,rating\n1,2,3\n1,2,abc\n": `line 3: rating "abc" is not a number`,
		"userId,movieId,rating\n1,2,NaN\n":        `line 2: rating "NaN" is not finite`,
		"userId,movieId,rating\n1.5,2,3\n":        `line 2: user id "1.5" is not an integer`,
		"userId,movieId,rating\n":                 "no ratings after the header line",
		"":                                        "empty",
		"1\t2\n":                                  "line 1: 2 fields, want user, item and rating",
	} {
		p := writeFile(t, dir, "bad.csv", []byte(body))
		_, err := ReadRatings(p)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "bad.csv") {
			t.Errorf("%q: error %v, want %q naming the file", body, err, want)
		}
	}
}

// TestReadRatings32Range: a rating a float64 holds and a float32 does not
// is refused by ReadRatings32 with its line, not held as an infinity;
// ReadRatings keeps it.
func TestReadRatings32Range(t *testing.T) {
	p := writeFile(t, t.TempDir(), "big.csv", []byte("1,2,3\n2,3,-1e39\n3,1,4\n"))
	if r, err := ReadRatings(p); err != nil || r.Values[1] != -1e39 {
		t.Errorf("ReadRatings: %v, want -1e39 kept", err)
	}
	_, err := ReadRatings32(p, Layout{})
	if want := "line 2: rating -1e+39 is beyond the range of the float32 the values"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("ReadRatings32: error %v, want %q", err, want)
	}
	if _, err := ReadRatings32(writeFile(t, t.TempDir(), "ok.csv", []byte("1,2,3e38\n")), Layout{}); err != nil {
		t.Errorf("ReadRatings32 of 3e38: %v", err)
	}
}

// TestReadPairs reads pairs from CSV (with and without a header, extra
// columns ignored) and from .npy (C and Fortran order).
func TestReadPairs(t *testing.T) {
	dir := t.TempDir()
	for body, lines := range map[string][]int{
		"row,col,value\n1,2,0.5\n3,4,1\n":          {2, 3},
		"1,2\n3,4\n":                               {1, 2},
		"\ufeff1,2\n3,4\n":                         {1, 2}, // a BOM: not a header, the first pair kept
		"rating,movieId,userId\n5,2,1\n\n4,4,3\n":  {2, 4}, // by the header's names
		"1\t2\t5\t874965758\n3\t4\t1\t874965759\n": {1, 2}, // u.data's tabs
		"1::2::5\n3::4::1\n":                       {1, 2}, // ratings.dat's
		"1,2,abc\n3,4,def\n":                       {1, 2}, // a third field of words: no header
	} {
		p, err := ReadPairs(writeFile(t, dir, "p.csv", []byte(body)))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(p.Rows, []int64{1, 3}) || !slices.Equal(p.Cols, []int64{2, 4}) || !slices.Equal(p.Lines, lines) {
			t.Errorf("%q: %+v", body, p)
		}
	}
	p, err := ReadPairs("testdata/ints/i4_f_3x2.npy")
	if err != nil || !slices.Equal(p.Rows, []int64{0, 2, 4}) || !slices.Equal(p.Cols, []int64{1, 3, 5}) {
		t.Errorf("npy pairs: %+v, %v", p, err)
	}
	if _, err := ReadPairs(writeFile(t, dir, "bad.csv", []byte("1,2\n3,x\n"))); err == nil || !strings.Contains(err.Error(), `line 2: "x" is not an integer`) {
		t.Errorf("bad pair: %v", err)
	}
	if _, err := ReadPairs("testdata/ints/le_i4.npy"); err == nil || !strings.Contains(err.Error(), "want (m, 2)") {
		t.Errorf("1-D pairs: %v", err)
	}
}

// TestReadMasked reads a dense matrix with NaN for the missing entries, in
// compressed rows, and refuses an infinite entry.
func TestReadMasked(t *testing.T) {
	dir := t.TempDir()
	nan := math.NaN()
	p := writeFile(t, dir, "y.npy", float64s(t, []int{3, 2}, 1, nan, nan, nan, 5, 6))
	x, err := ReadMasked(p)
	if err != nil {
		t.Fatal(err)
	}
	if x.N1 != 3 || x.N2 != 2 || x.Missing != 3 || !slices.Equal(x.Start, []int{0, 1, 1, 3}) ||
		!slices.Equal(x.Cols, []int32{0, 0, 1}) || !slices.Equal(x.Values, []float64{1, 5, 6}) {
		t.Errorf("got %+v", x)
	}
	if b, n1, n2, err := MaskedBytes(p); err != nil || n1 != 3 || n2 != 2 || b < 6*8 {
		t.Errorf("MaskedBytes = %d, %d, %d, %v", b, n1, n2, err)
	}
	p = writeFile(t, dir, "inf.npy", float64s(t, []int{2, 2}, 1, nan, math.Inf(-1), 2))
	if _, err := ReadMasked(p); err == nil || !strings.Contains(err.Error(), "entry (1, 0) is -Inf") {
		t.Errorf("Inf: %v", err)
	}
	p = writeFile(t, dir, "vec.npy", float64s(t, []int{2}, 1, 2))
	if _, err := ReadMasked(p); err == nil || !strings.Contains(err.Error(), "want a non-empty matrix") {
		t.Errorf("vector: %v", err)
	}
}

// TestWriteInts writes int32 and int64 arrays that ReadInts reads back.
func TestWriteInts(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	if err := WriteInt32(&b, []int{2, 2}, []int32{-3, 0, 7, math.MaxInt32}); err != nil {
		t.Fatal(err)
	}
	data, shape, err := ReadInts(writeFile(t, dir, "a.npy", b.Bytes()))
	if err != nil || !slices.Equal(data, []int64{-3, 0, 7, math.MaxInt32}) || !slices.Equal(shape, []int{2, 2}) {
		t.Errorf("int32: %v %v %v", data, shape, err)
	}
	data, _, err = ReadInts(writeFile(t, dir, "b.npy", int64s(t, math.MinInt64, math.MaxInt64)))
	if err != nil || !slices.Equal(data, []int64{math.MinInt64, math.MaxInt64}) {
		t.Errorf("int64: %v %v", data, err)
	}
	if err := WriteInt64(&b, []int{3}, []int64{1}); err == nil {
		t.Error("a shape that does not hold the data was written")
	}
}

// TestExact32 narrows ratings to float32 only when nothing is lost: half
// stars and quarters go, a tenth (not a float32 exactly) or a value past
// float32's precision keeps the file's float64s.
func TestExact32(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		values string
		ok     bool
	}{{"4 3.5 0.25 -10", true}, {"4 3.5 3.7", false}, {"4 16777217", false}, {"4 16777216", true}} {
		var b strings.Builder
		for k, v := range strings.Fields(c.values) {
			fmt.Fprintf(&b, "%d,%d,%s\n", 7-k, k, v)
		}
		r, err := ReadRatings(writeFile(t, dir, "r.csv", []byte(b.String())))
		if err != nil {
			t.Fatal(err)
		}
		r32, ok := Exact32(r)
		if ok != c.ok {
			t.Fatalf("%s: Exact32 says %v, want %v", c.values, ok, c.ok)
		}
		if !ok {
			continue
		}
		for k, v := range r.Values {
			if float64(r32.Values[k]) != v || r32.Rows[k] != r.Rows[k] || r32.Cols[k] != r.Cols[k] {
				t.Fatalf("%s: rating %d is (%d, %d, %v), the file's (%d, %d, %v)", c.values, k, r32.Rows[k], r32.Cols[k], r32.Values[k], r.Rows[k], r.Cols[k], v)
			}
		}
		if !slices.Equal(r32.RowIDs, r.RowIDs) || !slices.Equal(r32.ColIDs, r.ColIDs) {
			t.Fatalf("%s: ids %v %v, the file's %v %v", c.values, r32.RowIDs, r32.ColIDs, r.RowIDs, r.ColIDs)
		}
	}
}

// TestReadRatingsLayouts reads the layouts people have: Excel's CSV with a
// byte order mark, other column names, MovieLens 100k's u.data (tabs, no
// header), MovieLens 1M's ratings.dat ("::"), quoted fields, semicolons,
// and columns given by name or number.
func TestReadRatingsLayouts(t *testing.T) {
	dir := t.TempDir()
	want := &Ratings{Rows: []int32{0, 1, 0}, Cols: []int32{1, 0, 0}, Values: []float64{4, 3.5, 1}, RowIDs: []int64{1, 2}, ColIDs: []int64{10, 20}}
	for _, c := range []struct {
		name, body, columns string
	}{
		{"bom.csv", "\ufeffuserId,movieId,rating\r\n1,20,4\r\n2,10,3.5\r\n1,10,1\r\n", ""},
		{"snake.csv", "user_id,item_id,rating,timestamp\n1,20,4,0\n2,10,3.5,0\n1,10,1,0\n", ""},
		{"u.data", "1\t20\t4\t881250949\n2\t10\t3.5\t891717742\n1\t10\t1\t878887116\n", ""},
		{"ratings.dat", "1::20::4::978300760\n2::10::3.5::978302109\n1::10::1::978301968\n", ""},
		{"quoted.csv", "\"user\",\"item\",\"rating\"\n\"1\",\"20\",\"4\"\n\"2\",\"10\",\"3.5\"\n\"1\",\"10\",\"1\"\n", ""},
		{"semi.csv", "User ID;Book ID;Score\n1;20;4\n2;10;3.5\n1;10;1\n", ""},
		{"spaces.txt", "1 20 4\n2  10 3.5\n\n1 10 1\n", ""},
		{"named.csv", "when,who,what,stars\n0,1,20,4\n0,2,10,3.5\n0,1,10,1\n", "who,what,stars"},
		{"numbered.csv", "0,1,20,4\n0,2,10,3.5\n0,1,10,1\n", "2,3,4"},
	} {
		layout := Layout{}
		if c.columns != "" {
			var err error
			if layout, err = ParseLayout(c.columns); err != nil {
				t.Fatal(err)
			}
		}
		got, err := ReadRatingsLayout(writeFile(t, dir, c.name, []byte(c.body)), layout)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, want)
		}
		got32, err := ReadRatings32(writeFile(t, dir, c.name, []byte(c.body)), layout)
		if err != nil || !reflect.DeepEqual(got32, &Ratings32{Rows: want.Rows, Cols: want.Cols, Values: []float32{4, 3.5, 1}, RowIDs: want.RowIDs, ColIDs: want.ColIDs}) {
			t.Errorf("%s as float32: %+v, %v", c.name, got32, err)
		}
	}
	// float32 of the float64 read: 0.1 and Jester's 16 digits round once.
	got32, err := ReadRatings32(writeFile(t, dir, "tenths.csv", []byte("user,item,rating\n1,2,0.1\n1,3,-2.871870264272588\n")), Layout{})
	if err != nil || !slices.Equal(got32.Values, []float32{float32(0.1), float32(-2.871870264272588)}) {
		t.Errorf("tenths as float32: %+v, %v", got32, err)
	}
	for columns, msg := range map[string]string{"1,2": "want three columns", "0,1,2": "count from 1", "a,,b": "column 2 is empty"} {
		if _, err := ParseLayout(columns); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseLayout(%q): %v, want %q", columns, err, msg)
		}
	}
	p := writeFile(t, dir, "h.csv", []byte("a,b,c\n1,2,3\n"))
	for columns, msg := range map[string]string{"a,b,x": `has no column "x" for the rating`, "1,2,4": "no column 4 for the rating"} {
		l, _ := ParseLayout(columns)
		if _, err := ReadRatingsLayout(p, l); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("--columns %s: %v, want %q", columns, err, msg)
		}
	}
}

// TestReadRatingsParts reads files (a header or none, blank lines, CRLF,
// quoted fields, tabs) in 1 to 9 parts: the parts, their ids put back,
// are the whole file's ratings in order, whatever the byte ranges cut;
// a bad line in a later part is named by its line in the whole file.
func TestReadRatingsParts(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for k := range 300 {
		switch k % 50 {
		case 7:
			b.WriteString("\n")
		case 13:
			fmt.Fprintf(&b, "\"%d\",%d,%d.5\r\n", rng.IntN(40), rng.IntN(30), rng.IntN(5))
		}
		fmt.Fprintf(&b, "%d,%d,%d\n", rng.IntN(40)-3, rng.IntN(30)+100, rng.IntN(5))
	}
	body := b.String()
	for _, file := range []string{"userId,movieId,rating\n" + body, body, strings.ReplaceAll(body, ",", "\t")} {
		p := writeFile(t, dir, "r.csv", []byte(file))
		whole, err := ReadRatings32(p, Layout{})
		if err != nil {
			t.Fatal(err)
		}
		for parts := 1; parts <= 9; parts++ {
			var users, items []int64
			var values []float32
			for part := range parts {
				rt, err := ReadRatings32Part(p, Layout{}, part, parts)
				if err != nil {
					t.Fatalf("part %d of %d: %v", part, parts, err)
				}
				for k, v := range rt.Values {
					users, items, values = append(users, rt.RowIDs[rt.Rows[k]]), append(items, rt.ColIDs[rt.Cols[k]]), append(values, v)
				}
			}
			if len(values) != len(whole.Values) {
				t.Fatalf("%d parts: %d ratings, the whole file %d", parts, len(values), len(whole.Values))
			}
			for k, v := range whole.Values {
				if users[k] != whole.RowIDs[whole.Rows[k]] || items[k] != whole.ColIDs[whole.Cols[k]] || values[k] != v {
					t.Fatalf("%d parts: rating %d is (%d, %d, %v), the whole file's (%d, %d, %v)", parts, k,
						users[k], items[k], values[k], whole.RowIDs[whole.Rows[k]], whole.ColIDs[whole.Cols[k]], v)
				}
			}
		}
	}
	bad := writeFile(t, dir, "bad.csv", []byte(body+"1,2,x\n"+body))
	want := fmt.Sprintf("line %d: rating \"x\"", strings.Count(body, "\n")+1)
	found := false
	for part := range 4 {
		_, err := ReadRatings32Part(bad, Layout{}, part, 4)
		if err != nil {
			found = true
			if !strings.Contains(err.Error(), want) {
				t.Errorf("part %d: %v, want %q", part, err, want)
			}
		}
	}
	if !found {
		t.Error("no part found the bad line")
	}
}

// TestReadParts: a file read in 2 to 9 parts on the cores (readParts, as
// ReadRatings32 reads a large file) is the file read on one, index for
// index and value for value, ids of the table's range and beyond it; a
// bad line fails it with the message one reader gives.
func TestReadParts(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	b.WriteString("userId,movieId,rating\n")
	for k := range 2000 {
		u := int64(rng.IntN(300)) - 20
		if k%97 == 5 {
			u = 1<<40 + int64(rng.IntN(5)) // beyond the direct table
		}
		if k%61 == 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%d,%d,%d.5\n", u, rng.IntN(80)+7, rng.IntN(5))
	}
	p := writeFile(t, dir, "r.csv", []byte(b.String()))
	one, err := readRatings[float32](p, Layout{}, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	for parts := 2; parts <= 9; parts++ {
		got, err := readParts[float32](p, Layout{}, parts)
		if err != nil {
			t.Fatalf("%d parts: %v", parts, err)
		}
		if !slices.Equal(got.Rows, one.Rows) || !slices.Equal(got.Cols, one.Cols) || !slices.Equal(got.Values, one.Values) ||
			!slices.Equal(got.RowIDs, one.RowIDs) || !slices.Equal(got.ColIDs, one.ColIDs) {
			t.Fatalf("%d parts: not the ratings one reader reads (%d ratings, %d users; want %d, %d)", parts, len(got.Values), len(got.RowIDs), len(one.Values), len(one.RowIDs))
		}
	}
	// Blank lines before the first line, more than a part's bytes: the
	// header (or the first rating) falls in a later part's bytes.
	blanks := strings.Repeat("\n  \r\n\t\n", 20000)
	for _, text := range []string{blanks + b.String(), blanks + b.String()[22:]} {
		p := writeFile(t, dir, "blanks.csv", []byte(text))
		one, err := readRatings[float32](p, Layout{}, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, parts := range []int{2, 3, 5} {
			got, err := readParts[float32](p, Layout{}, parts)
			if err != nil {
				t.Fatalf("leading blank lines, %d parts: %v", parts, err)
			}
			if !slices.Equal(got.Rows, one.Rows) || !slices.Equal(got.Values, one.Values) || !slices.Equal(got.RowIDs, one.RowIDs) || !slices.Equal(got.ColIDs, one.ColIDs) {
				t.Fatalf("leading blank lines, %d parts: not the ratings one reader reads (%d ratings; want %d)", parts, len(got.Values), len(one.Values))
			}
		}
	}
	bad := writeFile(t, dir, "bad.csv", []byte(b.String()+"1,2,x\n"+b.String()[22:]))
	_, want := readRatings[float32](bad, Layout{}, 0, 1)
	if _, err := readParts[float32](bad, Layout{}, 4); err == nil || want == nil || err.Error() != want.Error() {
		t.Errorf("a bad line in 4 parts: %v, want %v", err, want)
	}
}

// TestReadFull32 reads a float64 matrix as float32, and refuses an entry
// that is finite in the file but beyond float32's range, saying so, as
// it refuses an infinity.
func TestReadFull32(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, y []float64) string {
		var b bytes.Buffer
		if err := WriteFloat64(&b, []int{2, 3}, y); err != nil {
			t.Fatal(err)
		}
		return writeFile(t, dir, name, b.Bytes())
	}
	m, err := ReadFull32("in", write("ok.npy", []float64{1, 2, 3, 4, 5, 0.1}))
	if err != nil || m.N1 != 2 || m.N2 != 3 || m.Y[5] != float32(0.1) {
		t.Fatalf("ReadFull32: %+v, %v", m, err)
	}
	_, err = ReadFull32("in", write("big.npy", []float64{1, 2, 3, 4, -1e39, 6}))
	if want := "entry (1, 1) is -Inf, or beyond the range of the float32 it is held in"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("-1e39: %v, want %q", err, want)
	}
	_, err = ReadFull32("in", write("nan.npy", []float64{1, 2, 3, 4, math.NaN(), 6}))
	if err == nil || !strings.HasSuffix(err.Error(), "entry (1, 1) is NaN") {
		t.Errorf("NaN: %v", err)
	}
}

// TestLayoutColumnsDistinct: a layout naming one column twice, by number
// or by name and number, is refused, not read as the same field twice.
func TestLayoutColumnsDistinct(t *testing.T) {
	p := writeFile(t, t.TempDir(), "r.csv", []byte("userId,movieId,rating\n1,2,3\n"))
	for _, cols := range []string{"1,1,3", "userId,1,rating", "1,2,1"} {
		l, err := ParseLayout(cols)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ReadRatings32(p, l); err == nil || !strings.Contains(err.Error(), "want a column each") {
			t.Errorf("--columns %s: %v", cols, err)
		}
	}
	if _, err := ReadInteractions(p, Layout{Columns: []string{"1", "1"}}); err == nil || !strings.Contains(err.Error(), "the user and the item are both column 1") {
		t.Errorf("interactions --columns 1,1: %v", err)
	}
}
