package dataio

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReadInteractions reads interactions with and without weights, with a
// header naming the weight or not, and refuses a weight that is not
// positive by its line.
func TestReadInteractions(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		text    string
		weights []float32
		err     string
	}{
		{"1,10\n2,10\n1,20\n", []float32{1, 1, 1}, ""},
		{"1\t10\t3\n2\t10\t0.5\n", []float32{3, 0.5}, ""},
		{"user_id,item_id,plays,time\n1,10,4,99\n2,20,1,98\n", []float32{4, 1}, ""},
		{"userId,movieId,timestamp\n1,10,99\n", []float32{1}, ""}, // no weight column: 1
		{"1,10,2\n1,11,0\n", nil, "line 2: weight 0: weights must be positive"},
		{"1,10,2\n1,11,-3\n", nil, "line 2: weight -3"},
		{"1\n", nil, "want user, item and an optional weight"},
	} {
		path := filepath.Join(dir, "x.csv")
		os.WriteFile(path, []byte(c.text), 0o644)
		rt, err := ReadInteractions(path, Layout{})
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.text, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.text, err)
			continue
		}
		if !slices.Equal(rt.Values, c.weights) {
			t.Errorf("%q: weights %v, want %v", c.text, rt.Values, c.weights)
		}
	}
}
