package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/scaledsm/scaledsm/background"
	"github.com/scaledsm/scaledsm/dataio"
)

// writeFrames writes frames [0, n) of v into dir as in%06d.png from
// first, CDnet's layout, and returns their true masks.
func writeFrames(t *testing.T, v *background.Synthetic, n, first int, dir string) [][]uint8 {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	truth := make([][]uint8, n)
	for i := range n {
		im := image.NewGray(image.Rect(0, 0, v.Width, v.Height))
		truth[i] = make([]uint8, len(im.Pix))
		v.Frame(i, im.Pix, truth[i])
		var b bytes.Buffer
		if err := png.Encode(&b, im); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "in"+pad6(first+i)+".png"), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return truth
}

func pad6(n int) string {
	s := strings.Repeat("0", 6) + itoa(n)
	return s[len(s)-6:]
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// maskScore counts masks against their truth, pixel by pixel.
type maskScore struct{ tp, fp, fn int }

func (s *maskScore) add(mask, truth []uint8) {
	for p, x := range mask {
		switch {
		case x != 0 && truth[p] != 0:
			s.tp++
		case x != 0:
			s.fp++
		case truth[p] != 0:
			s.fn++
		}
	}
}

// f returns the F-measure of the counts.
func (s maskScore) f() float64 { return 2 * float64(s.tp) / float64(max(1, 2*s.tp+s.fp+s.fn)) }

// readMask reads a mask PNG, which must be 8-bit gray (0 and 255 in any
// reader: a paletted one reads 0 and 1 in PIL).
func readMask(t *testing.T, path string) []uint8 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	g, ok := m.(*image.Gray)
	if !ok {
		t.Fatalf("%s: a %T, want 8-bit gray", path, m)
	}
	return g.Pix
}

// TestBackgroundFolderOrder checks a folder's frames: numbered without
// padding (f1 ... f70) they come in their numbers' order, with the masks of
// the padded names; two names of one number are refused before any
// output; a frame that fails to decode after others says what was written.
func TestBackgroundFolderOrder(t *testing.T) {
	d := t.TempDir()
	v := background.NewSynthetic(64, 48, 2, 3)
	n := 70
	writeFrames(t, v, n, 1, filepath.Join(d, "padded"))
	unpadded, twice := filepath.Join(d, "unpadded"), filepath.Join(d, "twice")
	for _, dir := range []string{unpadded, twice} {
		os.MkdirAll(dir, 0o755)
	}
	for i := 1; i <= n; i++ {
		b, err := os.ReadFile(filepath.Join(d, "padded", "in"+pad6(i)+".png"))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(unpadded, fmt.Sprintf("f%d.png", i)), b, 0o644)
		if i <= 30 {
			os.WriteFile(filepath.Join(twice, fmt.Sprintf("a_%03d.png", i)), b, 0o644)
			os.WriteFile(filepath.Join(twice, fmt.Sprintf("b_%03d.png", i)), b, 0o644)
		}
	}
	for _, in := range []string{"padded", "unpadded"} {
		code, out, errs := cli(t, "background", "--in", filepath.Join(d, in), "--out", filepath.Join(d, "m-"+in), "--learn", "20")
		if code != 0 || !strings.Contains(out, "bin000001.png to bin000070.png") {
			t.Fatalf("%s: exit %d, %q, %s", in, code, out, errs)
		}
	}
	for i := 1; i <= n; i++ {
		name := "bin" + pad6(i) + ".png"
		if !slices.Equal(readMask(t, filepath.Join(d, "m-padded", name)), readMask(t, filepath.Join(d, "m-unpadded", name))) {
			t.Fatalf("%s differs between f1 ... f70 and in000001 ... in000070", name)
		}
	}
	out := filepath.Join(d, "m-twice")
	code, _, errs := cli(t, "background", "--in", twice, "--out", out, "--learn", "20")
	if code != 2 || !strings.Contains(errs, "a_001.png and b_001.png are both frame 1") {
		t.Errorf("two frames of one number: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("--out made for frames refused")
	}
	// A frame that does not decode after 25: the masks written are said.
	os.WriteFile(filepath.Join(unpadded, "f26.png"), []byte("not a png"), 0o644)
	code, _, errs = cli(t, "background", "--in", unpadded, "--out", filepath.Join(d, "m-bad"), "--learn", "20")
	if code != 2 || !strings.Contains(errs, "f26.png: cannot decode") || !strings.Contains(errs, "25 masks written to "+filepath.Join(d, "m-bad")+" before it stopped (bin000001.png to bin000025.png), no summary.json") {
		t.Errorf("a bad frame after 25: exit %d, %q", code, errs)
	}
	// A mask that cannot be written after one was: exit 3, the output
	// named, the mask written said.
	blocked := filepath.Join(d, "m-blocked")
	os.MkdirAll(filepath.Join(blocked, "bin000002.png"), 0o755)
	os.Remove(filepath.Join(unpadded, "f26.png"))
	code, _, errs = cli(t, "background", "--in", unpadded, "--out", blocked, "--learn", "20")
	if code != exitOutput || !strings.Contains(errs, "--out "+blocked+": ") || !strings.Contains(errs, "; 1 mask written to "+blocked+" before it stopped (bin000001.png)") {
		t.Errorf("a mask that cannot be written: exit %d, %q", code, errs)
	}
}

// TestBackgroundCommand runs the command on a folder of PNG frames, a .npy
// and raw frames on stdin: the same masks from each, named from the
// frames' numbers (or positions), 0 or 255, close to the truth.
func TestBackgroundCommand(t *testing.T) {
	d := t.TempDir()
	v := background.NewSynthetic(96, 72, 3, 7)
	n := 160
	truth := writeFrames(t, v, n, 1, filepath.Join(d, "input"))
	code, out, errs := cli(t, "background", "--in", filepath.Join(d, "input"), "--out", filepath.Join(d, "masks"), "--learn", "60")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	t.Log(out)
	var sc maskScore
	for i := range n {
		m := readMask(t, filepath.Join(d, "masks", "bin"+pad6(i+1)+".png"))
		for p, x := range m {
			if x != 0 && x != 255 {
				t.Fatalf("mask %d pixel %d is %d, want 0 or 255", i+1, p, x)
			}
		}
		sc.add(m, truth[i])
	}
	f := sc.f()
	if f < 0.85 {
		t.Errorf("F %.4f over the %d frames, want 0.85 at least", f, n)
	}
	var sum bgSummary
	b, err := os.ReadFile(filepath.Join(d, "masks", "summary.json"))
	if err != nil || json.Unmarshal(b, &sum) != nil {
		t.Fatalf("summary.json: %v", err)
	}
	if sum.Frames != n || sum.Learned.Frames != 60 || sum.Learned.Rank != 2 || sum.Masks != "bin000001.png to bin000160.png" {
		t.Errorf("summary %+v", sum)
	}
	if !strings.Contains(string(b), `"min_contrast": 0.06`) { // the settings by their flags' names
		t.Errorf("summary.json's settings: %s", b)
	}
	// The same frames as a .npy and on stdin: the same masks.
	var rawFrames []byte
	one := make([]uint8, v.Width*v.Height)
	for i := range n {
		v.Frame(i, one, nil)
		rawFrames = append(rawFrames, one...)
	}
	npy := filepath.Join(d, "video.npy")
	var nb bytes.Buffer
	if err := dataio.WriteHeader(&nb, dataio.Header{Dtype: "|u1", Shape: []int{n, v.Height, v.Width}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(npy, append(nb.Bytes(), rawFrames...), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := cli(t, "background", "--in", npy, "--out", filepath.Join(d, "npy"), "--learn", "60"); code != 0 {
		t.Fatalf("npy: exit %d: %s", code, errs)
	}
	// The same frames as floats in [0, 1] (float32): the same gray levels.
	floats := make([]float64, len(rawFrames))
	for p, x := range rawFrames {
		floats[p] = float64(x) / 255
	}
	var fb bytes.Buffer
	if err := dataio.WriteFloat32(&fb, []int{n, v.Height, v.Width}, floats); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "float.npy"), fb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := cli(t, "background", "--in", filepath.Join(d, "float.npy"), "--out", filepath.Join(d, "float"), "--learn", "60"); code != 0 {
		t.Fatalf("float npy: exit %d: %s", code, errs)
	}
	stdin = bytes.NewReader(rawFrames)
	defer func() { stdin = os.Stdin }()
	if code, _, errs := cli(t, "background", "--in", "-", "--size", "96x72", "--out", filepath.Join(d, "raw"), "--learn", "60"); code != 0 {
		t.Fatalf("stdin: exit %d: %s", code, errs)
	}
	for i := range n {
		name := "bin" + pad6(i+1) + ".png"
		a := readMask(t, filepath.Join(d, "masks", name))
		if !bytes.Equal(a, readMask(t, filepath.Join(d, "npy", name))) || !bytes.Equal(a, readMask(t, filepath.Join(d, "raw", name))) ||
			!bytes.Equal(a, readMask(t, filepath.Join(d, "float", name))) {
			t.Fatalf("%s differs between the PNG frames, the .npy (uint8 or float) and stdin", name)
		}
	}
}

// noise returns n bytes of a fixed pseudo-random sequence.
func noise(n int) []byte {
	b := make([]byte, n)
	x := uint32(1)
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return b
}

// TestBackgroundBadInput checks that each bad input exits 2 with one line
// naming it, and that the masks written before a bad frame are whole.
func TestBackgroundBadInput(t *testing.T) {
	d := t.TempDir()
	v := background.NewSynthetic(64, 48, 2, 8)
	good := filepath.Join(d, "good")
	writeFrames(t, v, 40, 1, good)
	if err := os.MkdirAll(filepath.Join(d, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Frames of two sizes; a truncated PNG after 30 good frames.
	sizes := filepath.Join(d, "sizes")
	writeFrames(t, v, 30, 1, sizes)
	writeFrames(t, background.NewSynthetic(32, 48, 1, 9), 1, 31, sizes)
	trunc := filepath.Join(d, "trunc")
	writeFrames(t, v, 31, 1, trunc)
	last := filepath.Join(trunc, "in000031.png")
	b, _ := os.ReadFile(last)
	if err := os.WriteFile(last, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	// A float .npy with an infinity in its second frame.
	var fb bytes.Buffer
	inf := make([]float64, 2*64*48)
	inf[64*48+5] = math.Inf(1)
	if err := dataio.WriteFloat64(&fb, []int{2, 48, 64}, inf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "inf.npy"), fb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		args  []string
		stdin []byte
		want  string
	}{
		{"empty folder", []string{"--in", filepath.Join(d, "empty")}, nil, "no PNG or JPEG"},
		{"sizes differ", []string{"--in", sizes, "--learn", "20"}, nil, "is 32x48, the first frame 64x48"},
		{"truncated PNG", []string{"--in", trunc, "--learn", "20"}, nil, "in000031.png: cannot decode"},
		{"stdin ends inside a frame", []string{"--in", "-", "--size", "64x48", "--learn", "20"}, noise(64*48*25 + 100), "ends inside frame 26"},
		{"no size for stdin", []string{"--in", "-"}, nil, "--size"},
		{"infinite value", []string{"--in", filepath.Join(d, "inf.npy")}, nil, "frame 2: value 5 is +Inf"},
		{"huge raw frames", []string{"--in", "-", "--size", "3037000500x3037000500"}, nil, "at most 32768"},
		{"missing", []string{"--in", filepath.Join(d, "nothing")}, nil, "nothing: cannot stat: no such file or directory"},
		{"median even", []string{"--in", good, "--median", "4"}, nil, "--median 4"},
		{"rank too large", []string{"--in", good, "--rank", "200"}, nil, "--rank 200"},
		{"learn 0, not the default", []string{"--in", good, "--learn", "0"}, nil, "--learn 0: must be at least 2 frames"},
		{"absorb 0", []string{"--in", good, "--absorb", "0"}, nil, "--absorb 0"},
		{"no contrast floor", []string{"--in", good, "--learn", "20", "--min-contrast", "0"}, nil, ""},
		{"too few frames", []string{"--in", good, "--rank", "2", "--learn", "100"}, nil, ""},
		{"black frames", []string{"--in", "-", "--size", "64x48", "--learn", "20"}, make([]byte, 64*48*30), ""},
	}
	for _, c := range cases {
		out := filepath.Join(d, "out-"+strings.ReplaceAll(c.name, " ", "-"))
		if c.stdin != nil {
			stdin = bytes.NewReader(c.stdin)
		}
		code, _, errs := cli(t, append([]string{"background", "--out", out}, c.args...)...)
		stdin = os.Stdin
		if c.want == "" { // a short video: learned from the frames it has; a setting of 0 taken
			if code != 0 {
				t.Errorf("%s: exit %d: %s", c.name, code, errs)
			}
			continue
		}
		if code != 2 || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%s: exit %d, %q: want exit 2 and one line with %q", c.name, code, errs, c.want)
		}
		// What was written is whole masks.
		names, _ := filepath.Glob(filepath.Join(out, "*"))
		for _, name := range names {
			if strings.HasSuffix(name, ".png") {
				readMask(t, name)
			} else {
				t.Errorf("%s: %s left in the output", c.name, filepath.Base(name))
			}
		}
	}
}

// TestBackgroundColor runs --color on RGB PNG frames, the same frames as a
// .npy of frames × height × width × 3 and as raw rgb24 on stdin: the same
// masks from each; and refuses --color for a .npy of gray frames.
func TestBackgroundColor(t *testing.T) {
	d := t.TempDir()
	v := background.NewSynthetic(64, 48, 2, 12)
	n := 70
	gray := make([]uint8, v.Width*v.Height)
	var rgb []byte
	if err := os.MkdirAll(filepath.Join(d, "in"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		v.Frame(i, gray, nil)
		im := image.NewNRGBA(image.Rect(0, 0, v.Width, v.Height))
		for p, g := range gray {
			c := []byte{g, uint8(min(255, int(g)+30)), g / 2}
			copy(im.Pix[4*p:], c)
			im.Pix[4*p+3] = 255
			rgb = append(rgb, c...)
		}
		var b bytes.Buffer
		if err := png.Encode(&b, im); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "in", "in"+pad6(i+1)+".png"), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var nb bytes.Buffer
	if err := dataio.WriteHeader(&nb, dataio.Header{Dtype: "|u1", Shape: []int{n, v.Height, v.Width, 3}}); err != nil {
		t.Fatal(err)
	}
	npy := filepath.Join(d, "v.npy")
	if err := os.WriteFile(npy, append(nb.Bytes(), rgb...), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(name string, args ...string) {
		t.Helper()
		if code, _, errs := cli(t, append([]string{"background", "--color", "--learn", "30", "--out", filepath.Join(d, name)}, args...)...); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errs)
		}
	}
	run("png", "--in", filepath.Join(d, "in"))
	run("npy", "--in", npy)
	stdin = bytes.NewReader(rgb)
	run("raw", "--in", "-", "--size", "64x48")
	stdin = os.Stdin
	for i := range n {
		name := "bin" + pad6(i+1) + ".png"
		a := readMask(t, filepath.Join(d, "png", name))
		if !bytes.Equal(a, readMask(t, filepath.Join(d, "npy", name))) || !bytes.Equal(a, readMask(t, filepath.Join(d, "raw", name))) {
			t.Fatalf("%s differs between the PNG frames, the .npy and stdin", name)
		}
	}
	// A gray .npy has no colour to take.
	var gb bytes.Buffer
	if err := dataio.WriteHeader(&gb, dataio.Header{Dtype: "|u1", Shape: []int{2, 48, 64}}); err != nil {
		t.Fatal(err)
	}
	grayNpy := filepath.Join(d, "gray.npy")
	if err := os.WriteFile(grayNpy, append(gb.Bytes(), make([]byte, 2*48*64)...), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := cli(t, "background", "--color", "--in", grayNpy, "--out", filepath.Join(d, "g")); code != 2 || !strings.Contains(errs, "gray frames, no colour to take") {
		t.Errorf("--color of a gray .npy: exit %d, %q", code, errs)
	}
}
