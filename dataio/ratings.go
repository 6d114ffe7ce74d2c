package dataio

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Ratings are the entries of a ratings file: Rows[k], Cols[k] and
// Values[k] for the k-th rating in file order, the ids mapped to indices
// in increasing order of id (row i is the user RowIDs[i], column j the
// item ColIDs[j]).
type Ratings = RatingsOf[float64]

// Layout says which columns of a ratings file hold the user, the item and
// the rating. The zero value finds them: by name in a header line (userId,
// user_id, user, ...; movieId, item_id, item, ...; rating, score, ...; in
// any order, among other columns), or, in a file without a header, the
// first three columns, as MovieLens's u.data and ratings.dat have them.
type Layout struct {
	// Columns, when not nil, names the user, item and rating columns,
	// each by its header name or its number counted from 1.
	Columns []string
	// Weights reads interactions (implicit feedback): the third column
	// is an optional weight (a count, a time), 1 where the file has none;
	// a header names it as one of weightNames, and every weight must be
	// positive.
	Weights bool
}

// ParseLayout parses the columns of a Layout from "user,item,rating", each
// a header name or a column number from 1, as "user_id,item_id,stars" or
// "1,2,3".
func ParseLayout(s string) (Layout, error) {
	cols := strings.Split(s, ",")
	if len(cols) != 3 {
		return Layout{}, fmt.Errorf("%q: want three columns, user,item,rating (names or numbers from 1)", s)
	}
	for i, c := range cols {
		cols[i] = strings.TrimSpace(c)
		if cols[i] == "" {
			return Layout{}, fmt.Errorf("%q: column %d is empty", s, i+1)
		}
		if n, err := strconv.Atoi(cols[i]); err == nil && n < 1 {
			return Layout{}, fmt.Errorf("%q: column numbers count from 1", s)
		}
	}
	return Layout{Columns: cols}, nil
}

// The names a header may give the columns, compared without case, spaces,
// '_' and '-'.
var columnNames = [3][]string{
	{"userid", "user", "uid", "customerid", "reviewerid"},
	{"movieid", "itemid", "item", "movie", "iid", "productid", "bookid", "songid"},
	{"rating", "ratings", "score", "stars", "value"},
}

var roles = [3]string{"user", "item", "rating"}

// weightNames are the names a header of interactions may give the
// weight column.
var weightNames = []string{"weight", "count", "counts", "plays", "playcount", "clicks", "views", "quantity", "rating", "score", "value"}

// role returns the name of column c's role in the layout.
func (l Layout) role(c int) string {
	if c == 2 && l.Weights {
		return "weight"
	}
	return roles[c]
}

func normalizeName(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '_', '-', '"', '\'':
			return -1
		}
		return unicode.ToLower(r)
	}, strings.TrimSpace(s))
}

// ratingsReader reads the records of a ratings file line by line, with the
// delimiter of its first line: "::" (MovieLens 1M), a tab (MovieLens 100k),
// a comma, a semicolon, or runs of spaces.
type ratingsReader struct {
	path  string
	sc    *bufio.Scanner
	line  int
	delim string // "" for spaces
	rec   []string
}

func newRatingsReader(path string, f io.Reader) *ratingsReader {
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	return &ratingsReader{path: path, sc: sc}
}

// next returns the fields of the next non-blank line, or io.EOF.
func (r *ratingsReader) next() ([]string, error) {
	for r.sc.Scan() {
		r.line++
		if rec, ok := r.fields(r.sc.Text()); ok {
			return rec, nil
		}
	}
	return nil, r.end()
}

// fields returns the fields of the line text, and false for a blank line.
func (r *ratingsReader) fields(text string) ([]string, bool) {
	if r.line == 1 {
		text = strings.TrimPrefix(text, "\ufeff") // Excel's UTF-8 byte order mark
	}
	text = strings.TrimRight(text, "\r")
	if strings.TrimSpace(text) == "" {
		return nil, false
	}
	if r.rec == nil {
		switch {
		case strings.Contains(text, "::"):
			r.delim = "::"
		case strings.Contains(text, "\t"):
			r.delim = "\t"
		case strings.Contains(text, ","):
			r.delim = ","
		case strings.Contains(text, ";"):
			r.delim = ";"
		}
	}
	r.rec = splitFields(r.rec[:0], text, r.delim)
	return r.rec, true
}

// end returns the error that ended the lines: io.EOF at the end of the
// file.
func (r *ratingsReader) end() error {
	if err := r.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("line %d: longer than 16 MB", r.line+1)
		}
		return readError(err)
	}
	return io.EOF
}

// splitFields splits a line at delim (runs of blanks when delim is ""),
// trimming blanks and one pair of double quotes around each field; a
// quoted field may hold the delimiter.
func splitFields(dst []string, text, delim string) []string {
	if delim == "" {
		return append(dst, strings.Fields(text)...)
	}
	for len(text) > 0 || len(dst) == 0 {
		t := strings.TrimLeft(text, " ")
		if strings.HasPrefix(t, "\"") {
			if end := strings.Index(t[1:], "\""); end >= 0 {
				field := t[1 : 1+end]
				rest := t[2+end:]
				if i := strings.Index(rest, delim); i >= 0 {
					dst = append(dst, field)
					text = rest[i+len(delim):]
					if text == "" {
						dst = append(dst, "")
					}
					continue
				}
				return append(dst, field)
			}
		}
		i := strings.Index(text, delim)
		if i < 0 {
			return append(dst, strings.TrimSpace(text))
		}
		dst = append(dst, strings.TrimSpace(text[:i]))
		text = text[i+len(delim):]
		if text == "" {
			dst = append(dst, "")
		}
	}
	return dst
}

// isNumber reports whether s parses as a number.
func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// columns returns the positions of the user, item and rating columns from
// the first record and the layout, and whether that record is a header:
// three different columns (two with interactions of no weight).
func (l Layout) columns(first []string) (at [3]int, header bool, err error) {
	at, header, err = l.findColumns(first)
	if err != nil {
		return at, header, err
	}
	for c := range 3 {
		for d := range c {
			if at[c] >= 0 && at[c] == at[d] {
				return at, header, fmt.Errorf("line 1: the %s and the %s are both column %d: want a column each", l.role(d), l.role(c), at[c]+1)
			}
		}
	}
	return at, header, nil
}

// findColumns is columns, the columns found as the layout gives them.
func (l Layout) findColumns(first []string) (at [3]int, header bool, err error) {
	// A header line has a name where a data line has a number.
	header = slices.ContainsFunc(first, func(f string) bool { return f != "" && !isNumber(f) })
	names := make([]string, len(first))
	for i, f := range first {
		names[i] = normalizeName(f)
	}
	if l.Weights {
		return l.weightColumns(first, names, header)
	}
	if l.Columns != nil {
		for c, want := range l.Columns {
			if n, err := strconv.Atoi(want); err == nil {
				if n > len(first) {
					return at, header, fmt.Errorf("line 1: %d fields, no column %d for the %s", len(first), n, roles[c])
				}
				at[c] = n - 1
				continue
			}
			if !header {
				return at, header, fmt.Errorf("line 1: no header line to find the column %q in; give the columns by number", want)
			}
			at[c] = slices.Index(names, normalizeName(want))
			if at[c] < 0 {
				return at, header, fmt.Errorf("line 1: the header %q has no column %q for the %s", strings.Join(first, ","), want, roles[c])
			}
		}
		return at, header, nil
	}
	if !header {
		if len(first) < 3 {
			return at, header, fmt.Errorf("line 1: %d fields, want user, item and rating", len(first))
		}
		return [3]int{0, 1, 2}, false, nil
	}
	for c := range 3 {
		at[c] = slices.IndexFunc(names, func(n string) bool { return slices.Contains(columnNames[c], n) })
		if at[c] < 0 {
			return at, header, fmt.Errorf("line 1: the header %q has no %s column (named one of %s; give the columns with --columns user,item,rating)",
				strings.Join(first, ","), roles[c], strings.Join(columnNames[c], ", "))
		}
	}
	return at, header, nil
}

// weightColumns is columns for interactions: the user and item columns
// as for ratings, the weight's -1 where there is none.
func (l Layout) weightColumns(first, names []string, header bool) (at [3]int, _ bool, err error) {
	at[2] = -1
	if l.Columns != nil {
		if len(l.Columns) < 2 || len(l.Columns) > 3 {
			return at, header, fmt.Errorf("want two or three columns, user,item[,weight]")
		}
		for c, want := range l.Columns {
			if n, err := strconv.Atoi(want); err == nil {
				if n > len(first) {
					return at, header, fmt.Errorf("line 1: %d fields, no column %d for the %s", len(first), n, l.role(c))
				}
				at[c] = n - 1
				continue
			}
			if !header {
				return at, header, fmt.Errorf("line 1: no header line to find the column %q in; give the columns by number", want)
			}
			if at[c] = slices.Index(names, normalizeName(want)); at[c] < 0 {
				return at, header, fmt.Errorf("line 1: the header %q has no column %q for the %s", strings.Join(first, ","), want, l.role(c))
			}
		}
		return at, header, nil
	}
	if !header {
		if len(first) < 2 {
			return at, header, fmt.Errorf("line 1: %d field, want user, item and an optional weight", len(first))
		}
		if len(first) >= 3 {
			at[2] = 2
		}
		return [3]int{0, 1, at[2]}, false, nil
	}
	for c := range 2 {
		if at[c] = slices.IndexFunc(names, func(n string) bool { return slices.Contains(columnNames[c], n) }); at[c] < 0 {
			return at, header, fmt.Errorf("line 1: the header %q has no %s column (named one of %s; give the columns with --columns user,item[,weight])",
				strings.Join(first, ","), roles[c], strings.Join(columnNames[c], ", "))
		}
	}
	at[2] = slices.IndexFunc(names, func(n string) bool { return slices.Contains(weightNames, n) })
	return at, header, nil
}

// ReadInteractions reads interactions (implicit feedback): one a line, the
// user and item ids integers and an optional positive weight (1 where a
// line has none), as ReadRatings32 reads ratings (see Layout.Weights).
func ReadInteractions(path string, layout Layout) (*Ratings32, error) {
	layout.Weights = true
	return ReadRatings32(path, layout)
}

// ReadRatings reads a ratings file with the columns found as the zero
// Layout finds them: see ReadRatingsLayout.
func ReadRatings(path string) (*Ratings, error) { return ReadRatingsLayout(path, Layout{}) }

// ReadRatingsLayout reads a ratings file: one rating per line, the user
// and item ids integers and the rating a finite number, in the columns
// the layout says; the fields are separated by "::", tabs, commas,
// semicolons or spaces (as the first line has them), blank lines are
// skipped, and a UTF-8 byte order mark is ignored. Errors are *FileError
// values naming the line at fault.
func ReadRatingsLayout(path string, layout Layout) (*Ratings, error) {
	return readWhole[float64](path, layout)
}

// Ratings32 are Ratings whose values are rounded to float32 as they are
// read: 12 bytes a rating where Ratings take 16 (a recommender's compact
// form, which holds its ratings as float32).
type Ratings32 = RatingsOf[float32]

// ReadRatings32 is ReadRatingsLayout with the values rounded to float32
// as each is read (float32 of the float64 that ReadRatingsLayout gives):
// no float64 copy of the values is ever held.
func ReadRatings32(path string, layout Layout) (*Ratings32, error) {
	return readWhole[float32](path, layout)
}

// Exact32 returns r's ratings with float32 values, 12 bytes a rating
// against r's 16, when every value is a float32 exactly (as ratings in
// stars, half stars or quarters are: float64(float32(v)) == v, so that
// nothing is lost), and false otherwise. The two share their rows,
// columns and ids.
func Exact32(r *Ratings) (*Ratings32, bool) {
	values := make([]float32, len(r.Values))
	for k, v := range r.Values {
		values[k] = float32(v)
		if float64(values[k]) != v {
			return nil, false
		}
	}
	return &Ratings32{Rows: r.Rows, Cols: r.Cols, Values: values, RowIDs: r.RowIDs, ColIDs: r.ColIDs}, true
}

// RatingsOf are ratings as a file holds them, with values of type V
// (Ratings, Ratings32): the row and column of each, indices of RowIDs and
// ColIDs.
type RatingsOf[V float32 | float64] struct {
	Rows, Cols     []int32
	Values         []V
	RowIDs, ColIDs []int64
}

// ReadRatings32Part is ReadRatings32 of one of parts byte ranges of the
// file, part from 0: the lines that begin in [part·size/parts,
// (part+1)·size/parts), so that the parts one after the other are the
// file's ratings in order, each read by its own rank of an MPI job. Every
// part reads the file's first line for its columns; only part 0 skips a
// header line. Its ids are those its own ratings rate (see
// recommend.ShareIDs), and a part may hold none. Errors name the line in
// the whole file.
func ReadRatings32Part(path string, layout Layout, part, parts int) (*Ratings32, error) {
	if parts < 1 || part < 0 || part >= parts {
		return nil, &FileError{Input: "ratings", Path: path, Err: fmt.Errorf("part %d of %d parts", part, parts)}
	}
	return readRatings[float32](path, layout, part, parts)
}

// readRatings reads part of parts of a ratings file (see
// ReadRatings32Part) into values of type V.
func readRatings[V float32 | float64](path string, layout Layout, part, parts int) (*RatingsOf[V], error) {
	return readInto(path, layout, part, parts, func(lines int) ([]int32, []int32, []V) {
		return make([]int32, 0, lines), make([]int32, 0, lines), make([]V, 0, lines)
	})
}

// readInto is readRatings with the slices of the ratings from alloc,
// given the part's lines (an upper bound on its ratings): empty, of that
// capacity at least.
func readInto[V float32 | float64](path string, layout Layout, part, parts int, alloc func(lines int) ([]int32, []int32, []V)) (*RatingsOf[V], error) {
	const input = "ratings"
	f, err := os.Open(path)
	if err != nil {
		return nil, &FileError{Input: input, Path: path, Err: fmt.Errorf("cannot open: %w", unwrapPathErr(err))}
	}
	defer f.Close()
	fail := func(format string, args ...any) error {
		return &FileError{Input: input, Path: path, Err: fmt.Errorf(format, args...)}
	}
	r := newRatingsReader(path, f)
	first, err := r.next()
	if err == io.EOF {
		return nil, fail("empty: want one rating per line, as user,item,rating")
	}
	if err != nil {
		return nil, fail("%v", err)
	}
	at, header, err := layout.columns(first)
	if err != nil {
		return nil, fail("%v", err)
	}
	need := slices.Max(at[:]) + 1
	pr, lo, lines, err := partReader(r, f, part, parts)
	if err != nil {
		return nil, fail("%v", readError(err))
	}
	// Ids are mapped to indices as they are read (12 or 16 bytes a rating, not
	// the 24 of the ids and a copy to sort), then renumbered in the order
	// of the ids.
	rows, cols, values := alloc(lines)
	users, items := newIDMap(lines), newIDMap(lines)
	lineAt := func() int { // in the whole file
		before, _ := countLines(f, 0, lo)
		return before - 1 + pr.line
	}
	add := func(q quickRating) error {
		if layout.Weights && !(q.value > 0) {
			return fail("line %d: weight %v: weights must be positive", lineAt(), q.value)
		}
		v := V(q.value)
		if math.IsInf(float64(v), 0) { // a float64 beyond float32's range
			role := roles[2]
			if layout.Weights {
				role = "weight"
			}
			return fail("line %d: %s %v is beyond the range of the float32 the values are held in (±3.4e38)", lineAt(), role, q.value)
		}
		rows = append(rows, users.index(q.user))
		cols = append(cols, items.index(q.item))
		values = append(values, v)
		return nil
	}
	if lo == 0 {
		if _, err := pr.next(); err == nil && !header { // the first line, again
			q, err := record(first, at, need)
			if err != nil {
				return nil, fail("line %d: %v", pr.line, err)
			}
			if err := add(q); err != nil {
				return nil, err
			}
		}
	}
	// Lines of plain numbers are parsed from the scanner's bytes (quick);
	// any other line, as the first was, with the same result.
	for pr.sc.Scan() {
		pr.line++
		line := pr.sc.Bytes()
		if q, ok := quick(line, pr.delim, at, need); ok {
			if err := add(q); err != nil {
				return nil, err
			}
			continue
		}
		if rec, ok := pr.fields(string(line)); ok {
			q, err := record(rec, at, need)
			if err != nil {
				return nil, fail("line %d: %v", lineAt(), err)
			}
			if err := add(q); err != nil {
				return nil, err
			}
		}
	}
	if err := pr.end(); err != io.EOF {
		return nil, fail("%v", err)
	}
	if len(values) == 0 && parts == 1 {
		return nil, fail("no ratings after the header line")
	}
	if users.overflow || items.overflow {
		return nil, fail("more than 2^31 distinct ids")
	}
	rt := &RatingsOf[V]{Rows: rows, Cols: cols, Values: values}
	rt.RowIDs = users.sorted(rows)
	rt.ColIDs = items.sorted(cols)
	return rt, nil
}

// partReader returns a reader of the lines of part of parts of the file f
// (see partRange), which r has read the first line of: with r's
// delimiter, or from the start as r when the part starts the file; the
// offset of the part, and its lines (see countLines), by which the slices
// are sized so that they do not grow by copies (a third of the time of a
// large file).
func partReader(r *ratingsReader, f *os.File, part, parts int) (pr *ratingsReader, lo int64, lines int, err error) {
	lo, hi, err := partRange(f, part, parts)
	if err != nil {
		return nil, 0, 0, err
	}
	if parts > 1 {
		// The first line (a header or a rating) is the first part's, even
		// after more blank lines than a part's bytes.
		first, err := lineEnd(f, r.line)
		if err != nil {
			return nil, 0, 0, err
		}
		if part > 0 {
			lo = max(lo, first)
		}
		hi = max(hi, first)
	}
	if lines, err = countLines(f, lo, hi); err != nil {
		return nil, 0, 0, err
	}
	pr = newRatingsReader(r.path, io.NewSectionReader(f, lo, hi-lo))
	if lo > 0 {
		pr.delim, pr.rec = r.delim, make([]string, 0, len(r.rec))
	}
	return pr, lo, lines, nil
}

// partRange returns the bytes [lo, hi) of part of parts of the file f:
// from the first line that begins at or after part·size/parts to the first
// that begins at or after the next part's offset.
func partRange(f *os.File, part, parts int) (lo, hi int64, err error) {
	st, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	size := st.Size()
	if lo, err = lineStart(f, int64(part)*size/int64(parts), size); err != nil {
		return 0, 0, err
	}
	hi, err = lineStart(f, int64(part+1)*size/int64(parts), size)
	return lo, hi, err
}

// lineEnd returns the offset just after the n-th line of f (from 1): its
// newline's, or the file's end.
func lineEnd(f io.ReaderAt, n int) (int64, error) {
	buf := make([]byte, 1<<16)
	var at int64
	for {
		k, err := f.ReadAt(buf, at)
		for j := 0; j < k; {
			i := bytes.IndexByte(buf[j:k], '\n')
			if i < 0 {
				break
			}
			if n--; n == 0 {
				return at + int64(j+i) + 1, nil
			}
			j += i + 1
		}
		at += int64(k)
		if err == io.EOF {
			return at, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// lineStart returns the offset of the first line of f (of size bytes)
// that begins at or after off, size if none does.
func lineStart(f io.ReaderAt, off, size int64) (int64, error) {
	if off == 0 || off >= size {
		return min(off, size), nil
	}
	buf := make([]byte, 1<<12)
	for at := off - 1; at < size; at += int64(len(buf)) {
		k, err := f.ReadAt(buf, at)
		if j := bytes.IndexByte(buf[:k], '\n'); j >= 0 {
			return at + int64(j) + 1, nil
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	return size, nil
}

// countLines returns the number of lines in the bytes [lo, hi) of f, plus
// one: an upper bound on the ratings there.
func countLines(f io.ReaderAt, lo, hi int64) (int, error) {
	buf := make([]byte, chunkBytes)
	lines := 1
	for at := lo; at < hi; {
		k, err := f.ReadAt(buf[:min(int64(len(buf)), hi-at)], at)
		lines += bytes.Count(buf[:k], []byte{'\n'})
		at += int64(k)
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	return lines, nil
}

// record parses the fields of a line at the columns at, need of them at
// least; its error says what is wrong with them.
func record(rec []string, at [3]int, need int) (quickRating, error) {
	if len(rec) < need {
		return quickRating{}, fmt.Errorf("%d fields, want %d (the %s in column %d)", len(rec), need, roles[slices.Index(at[:], need-1)], need)
	}
	var ids [2]int64
	for c := range 2 {
		s := rec[at[c]]
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return quickRating{}, fmt.Errorf("%s id %q is not an integer", roles[c], s)
		}
		ids[c] = id
	}
	if at[2] < 0 { // interactions without weights
		return quickRating{ids[0], ids[1], 1}, nil
	}
	s := rec[at[2]]
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return quickRating{}, fmt.Errorf("%s %q is not a number", roles[2], s)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return quickRating{}, fmt.Errorf("%s %q is not finite", roles[2], s)
	}
	return quickRating{ids[0], ids[1], v}, nil
}

// quickRating is a line's rating parsed by quick.
type quickRating struct {
	user, item int64
	value      float64
}

// quick parses a line of plain numbers: the fields at split by delim
// (not blanks), no quote in the line, each of the three fields an optional
// minus and digits, the rating with at most one point, no exponent and at
// most 2^53 as an integer of its digits, blanks around them. For those it
// returns what strconv returns for the fields splitFields gives; for any
// other line false, and the line is parsed as the first was.
func quick(line []byte, delim string, at [3]int, need int) (quickRating, bool) {
	var q quickRating
	if delim == "" || bytes.IndexByte(line, '"') >= 0 {
		return q, false
	}
	line = bytes.TrimSuffix(line, []byte{'\r'})
	var field [3][]byte
	rest := line
	for f := range need {
		cut := bytes.Index(rest, []byte(delim))
		this := rest
		if cut >= 0 {
			this, rest = rest[:cut], rest[cut+len(delim):]
		} else if f < need-1 {
			return q, false
		}
		for c := range 3 {
			if at[c] == f {
				field[c] = bytes.Trim(this, " ")
			}
		}
	}
	var ok [3]bool
	q.user, ok[0] = quickInt(field[0])
	q.item, ok[1] = quickInt(field[1])
	if at[2] < 0 { // interactions without weights
		q.value, ok[2] = 1, true
	} else {
		q.value, ok[2] = quickFloat(field[2])
	}
	return q, ok[0] && ok[1] && ok[2]
}

// quickInt parses an optional minus and 1 to 18 digits.
func quickInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = 10*n + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// quickFloat parses an optional minus, digits and at most one point, of at
// most 19 digits making an integer m <= 2^53 with f of them after the
// point, f <= 22: m and 10^f are exact as float64, so m / 10^f is the
// correctly rounded value, strconv.ParseFloat's.
func quickFloat(b []byte) (float64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	var m uint64
	digits, frac, point := 0, 0, false
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			m = 10*m + uint64(c-'0')
			digits++
			if point {
				frac++
			}
		case c == '.' && !point:
			point = true
		default:
			return 0, false
		}
	}
	if digits == 0 || digits > 19 || m > 1<<53 || frac >= len(exactPow10) {
		return 0, false
	}
	v := float64(m) / exactPow10[frac]
	if neg {
		v = -v
	}
	return v, true
}

// exactPow10 are the powers of ten that float64 holds exactly.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// RatingsSize returns an upper bound on the number of ratings in the file
// at path, its number of lines, counted without parsing them, so that a
// file too big for the machine can be refused before it is read.
func RatingsSize(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, &FileError{Input: "ratings", Path: path, Err: fmt.Errorf("cannot open: %w", unwrapPathErr(err))}
	}
	defer f.Close()
	st, err := f.Stat()
	if err == nil {
		var lines int
		if lines, err = countLines(f, 0, st.Size()); err == nil {
			return lines, nil
		}
	}
	return 0, &FileError{Input: "ratings", Path: path, Err: readError(err)}
}

// idMap gives ids indices in the order they first come: from a table for
// ids of a modest range (as MovieLens's, from 1 up), else a map.
type idMap struct {
	ids      []int64 // by index
	table    []int32 // index+1 of id, for 0 <= id < len(table)
	limit    int64   // the table's largest size
	other    map[int64]int32
	overflow bool // more than 2^31 ids
}

func newIDMap(lines int) *idMap {
	return &idMap{limit: int64(4*lines + 1<<20), other: map[int64]int32{}}
}

// index returns the index of id, a new one for an id not seen before.
func (m *idMap) index(id int64) int32 {
	if id >= 0 && id < m.limit {
		if id >= int64(len(m.table)) {
			m.table = slices.Grow(m.table, int(id)+1-len(m.table))[:id+1]
		}
		if k := m.table[id]; k > 0 {
			return k - 1
		}
		k := m.add(id)
		m.table[id] = k + 1
		return k
	}
	if k, ok := m.other[id]; ok {
		return k
	}
	k := m.add(id)
	m.other[id] = k
	return k
}

func (m *idMap) add(id int64) int32 {
	if len(m.ids) >= math.MaxInt32 {
		m.overflow = true
	}
	m.ids = append(m.ids, id)
	return int32(len(m.ids) - 1)
}

// sorted returns the ids in increasing order and renumbers the indices
// idx to their positions among them.
func (m *idMap) sorted(idx []int32) []int64 {
	order := make([]int32, len(m.ids))
	for k := range order {
		order[k] = int32(k)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(m.ids[a], m.ids[b]) })
	at := make([]int32, len(m.ids))
	ids := make([]int64, len(m.ids))
	for n, k := range order {
		at[k] = int32(n)
		ids[n] = m.ids[k]
	}
	for j, k := range idx {
		idx[j] = at[k]
	}
	return ids
}

// RecordLines returns the line of each of the given ratings (0 is the
// first rating, after a header line) of a ratings file, for messages
// about them.
func RecordLines(path string, layout Layout, records ...int) ([]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &FileError{Input: "ratings", Path: path, Err: fmt.Errorf("cannot open: %w", unwrapPathErr(err))}
	}
	defer f.Close()
	r := newRatingsReader(path, f)
	first, err := r.next()
	if err != nil {
		return nil, &FileError{Input: "ratings", Path: path, Err: err}
	}
	_, header, err := layout.columns(first)
	if err != nil {
		return nil, &FileError{Input: "ratings", Path: path, Err: err}
	}
	lines := make([]int, len(records))
	k := 0
	if header {
		_, err = r.next()
	}
	for ; err == nil && k <= slices.Max(records); _, err = r.next() {
		for i, rec := range records {
			if rec == k {
				lines[i] = r.line
			}
		}
		k++
	}
	if err != nil && err != io.EOF {
		return nil, &FileError{Input: "ratings", Path: path, Err: err}
	}
	return lines, nil
}

// Pairs are the (row, column) pairs of a predict request, in file order;
// Lines, for a CSV file, gives the line of each.
type Pairs struct {
	Rows, Cols []int64
	Lines      []int
}

// ReadPairs reads pairs from a .npy file of integers of shape (m, 2), or
// from a text file whose first two columns are integers, separated as a
// ratings file's (commas, tabs, "::", semicolons or blanks), a header line
// naming the user (row) and item (column) columns read by its names,
// further columns ignored. Errors are *FileError
// values naming the line or the element at fault.
func ReadPairs(path string) (*Pairs, error) {
	const input = "pairs"
	if strings.EqualFold(filepath.Ext(path), ".npy") {
		data, shape, err := ReadInts(path)
		if err != nil {
			if fe, ok := err.(*FileError); ok {
				fe.Input = input
			}
			return nil, err
		}
		if len(shape) != 2 || shape[1] != 2 {
			return nil, &FileError{Input: input, Path: path, Err: fmt.Errorf("shape %s: want (m, 2), one (row, column) pair per row", ShapeString(shape))}
		}
		p := &Pairs{Rows: make([]int64, shape[0]), Cols: make([]int64, shape[0])}
		for k := range shape[0] {
			p.Rows[k], p.Cols[k] = data[2*k], data[2*k+1]
		}
		return p, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &FileError{Input: input, Path: path, Err: fmt.Errorf("cannot open: %w", unwrapPathErr(err))}
	}
	defer f.Close()
	r := newRatingsReader(path, f) // the ratings' separators, quotes, BOM and blank lines
	p := &Pairs{}
	at := [2]int{0, 1}
	for first := true; ; first = false {
		rec, err := r.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &FileError{Input: input, Path: path, Err: err}
		}
		if first && slices.ContainsFunc(rec[:min(2, len(rec))], func(f string) bool { _, err := strconv.ParseInt(f, 10, 64); return err != nil }) {
			at = pairColumns(rec) // a header line: its user and item columns, if it names them
			continue
		}
		if len(rec) <= max(at[0], at[1]) {
			return nil, &FileError{Input: input, Path: path, Err: fmt.Errorf("line %d: %d field, want two: row,column", r.line, len(rec))}
		}
		var ij [2]int64
		for c := range 2 {
			s := rec[at[c]]
			if ij[c], err = strconv.ParseInt(s, 10, 64); err != nil {
				return nil, &FileError{Input: input, Path: path, Err: fmt.Errorf("line %d: %q is not an integer", r.line, s)}
			}
		}
		p.Rows = append(p.Rows, ij[0])
		p.Cols = append(p.Cols, ij[1])
		p.Lines = append(p.Lines, r.line)
	}
	return p, nil
}

// pairColumns returns the columns of the row (user) and column (item) ids
// that a header names (as the ratings' readers know them, or row and
// col), the first two where it names neither.
func pairColumns(header []string) [2]int {
	names := make([]string, len(header))
	for i, h := range header {
		names[i] = normalizeName(h)
	}
	aliases := [2][]string{append([]string{"row"}, columnNames[0]...), append([]string{"col", "column"}, columnNames[1]...)}
	var at [2]int
	for c := range 2 {
		at[c] = slices.IndexFunc(names, func(n string) bool { return slices.Contains(aliases[c], n) })
	}
	if at[0] < 0 || at[1] < 0 || at[0] == at[1] {
		return [2]int{0, 1}
	}
	return at
}

// ReadIDs reads a list of ids: the first field of each line (fields split
// by commas, tabs, semicolons or spaces), a header line skipped, blank
// lines too; a file of none is an error. Errors are *FileError values
// naming the line at fault.
func ReadIDs(input, path string) ([]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &FileError{Input: input, Path: path, Err: fmt.Errorf("cannot open: %w", unwrapPathErr(err))}
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	var ids []int64
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(strings.TrimPrefix(sc.Text(), "\ufeff"))
		if text == "" {
			continue
		}
		field, _, _ := strings.Cut(strings.Map(func(r rune) rune {
			if r == ',' || r == '\t' || r == ';' || r == ' ' {
				return ','
			}
			return r
		}, text), ",")
		id, err := strconv.ParseInt(strings.Trim(field, `"'`), 10, 64)
		if err != nil {
			if line == 1 {
				continue // a header line
			}
			return nil, &FileError{Input: input, Path: path, Err: fmt.Errorf("line %d: %q is not an integer id", line, field)}
		}
		ids = append(ids, id)
	}
	if err := sc.Err(); err != nil {
		return nil, &FileError{Input: input, Path: path, Err: readError(err)}
	}
	if len(ids) == 0 { // not "every id", which a caller may take nil for
		return nil, &FileError{Input: input, Path: path, Err: errors.New("holds no ids: want one a line, the first field")}
	}
	return ids, nil
}
