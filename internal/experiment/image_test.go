package experiment

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"math"
	"strings"
	"testing"
)

func TestPSNR(t *testing.T) {
	o := []float64{0, 0.5, 1, 0.25}
	x := make([]float64, len(o))
	for i, v := range o {
		x[i] = v + 0.1 // MSE 0.01: 20 dB
	}
	if got := psnr(x, o); math.Abs(got-20) > 1e-9 {
		t.Errorf("PSNR %g; want 20", got)
	}
}

func TestAstronaut(t *testing.T) {
	pix, w, h, err := Astronaut()
	if err != nil {
		t.Fatal(err)
	}
	if w != 512 || h != 512 || len(pix) != w*h {
		t.Fatalf("%d × %d, %d pixels", w, h, len(pix))
	}
	lo, hi, mean := 1.0, 0.0, 0.0
	for _, v := range pix {
		lo, hi, mean = min(lo, v), max(hi, v), mean+v/float64(len(pix))
	}
	// A photograph, not a constant or a corrupted file.
	if lo > 0.05 || hi < 0.95 || mean < 0.2 || mean > 0.8 {
		t.Errorf("pixels in [%g, %g], mean %g", lo, hi, mean)
	}
}

func imageByHand(def, l2 float64) *ImageResult {
	return &ImageResult{Config: DefaultImage(), CorruptedPSNR: 8, BestPSNR: 24,
		Solves: []ImageSolve{{Solver: Default, PSNR: def}, {Solver: ScaledGDL2, PSNR: l2}, {Solver: ScaledL1Auto, PSNR: 22}}}
}

func TestImageClaims(t *testing.T) {
	for _, tc := range []struct {
		def, l2 float64
		holds   bool
	}{{20, 15, true}, {17.0, 16.9, false}, {10, 5, false}} {
		v := imageByHand(tc.def, tc.l2).Claims()[0]
		if v.Holds != tc.holds {
			t.Errorf("default %g dB, l2 %g dB, corrupted 8 dB: holds %v; want %v (%s)", tc.def, tc.l2, v.Holds, tc.holds, v.Measured)
		}
	}
	if (&ImageResult{Config: DefaultImage()}).Claims()[0].Holds {
		t.Error("the claim holds without solves")
	}
	for _, tc := range []struct {
		psnr  []float64
		holds bool
	}{{[]float64{18, 21, 22}, true}, {[]float64{18, 21.5, 21.35}, true}, {[]float64{18, 21.5, 21.2}, false}, {[]float64{20, 19, 22}, false}} {
		r := imageByHand(20, 15)
		for k, p := range tc.psnr {
			r.Sweep = append(r.Sweep, ImageSolve{Solver: Default, Rank: 10 * (k + 1), PSNR: p})
		}
		v := r.Claims()
		if len(v) != 2 || v[1].Holds != tc.holds {
			t.Errorf("sweep %v: %+v; want the second claim to hold: %v", tc.psnr, v, tc.holds)
		}
	}
}

// TestRunImageShort runs the image study for a few iterations at rank 2:
// the corruption has the sizes asked for, the PSNRs are those of the
// images, and the JSON and PNGs restore the study.
func TestRunImageShort(t *testing.T) {
	c := DefaultImage()
	c.Rank, c.Ranks, c.MaxIter = 2, []int{3, 1}, 3
	r, err := RunImage(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Sweep) != 3 || r.Sweep[0].Rank != 1 || r.Sweep[1].Rank != 2 || r.Sweep[2].Rank != 3 || r.Sweep[1] != r.Solves[0] {
		t.Errorf("the rank sweep %+v; want the default at ranks 1, 2 (its solve) and 3", r.Sweep)
	}
	n := float64(r.Width * r.Height)
	if d := math.Abs(float64(r.Seen) - c.Observed*n); d > 5*math.Sqrt(n*c.Observed*(1-c.Observed)) {
		t.Errorf("%d pixels seen of %g; want about %g", r.Seen, n, c.Observed*n)
	}
	if d := math.Abs(float64(r.Salted) - c.Salt*float64(r.Seen)); d > 5*math.Sqrt(float64(r.Seen)*c.Salt*(1-c.Salt)) {
		t.Errorf("%d salted of %d; want about %g", r.Salted, r.Seen, c.Salt*float64(r.Seen))
	}
	orig, _, _, _ := Astronaut()
	asFloat := func(p []uint8) []float64 {
		x := make([]float64, len(p))
		for i, v := range p {
			x[i] = float64(v) / 255
		}
		return x
	}
	// The 8-bit images carry the PSNRs to within their rounding.
	if got := psnr(asFloat(r.Corrupted.Pix), orig); math.Abs(got-r.CorruptedPSNR) > 0.05 {
		t.Errorf("corrupted image's PSNR %g; recorded %g", got, r.CorruptedPSNR)
	}
	if len(r.Solves) != 3 || len(r.Recovered) != 3 {
		t.Fatalf("%d solves, %d images", len(r.Solves), len(r.Recovered))
	}
	for i, s := range r.Solves {
		if got := psnr(asFloat(r.Recovered[i].Pix), orig); math.Abs(got-s.PSNR) > 0.05 {
			t.Errorf("%s: PSNR %g of its image; recorded %g", s.Solver, got, s.PSNR)
		}
		if s.PSNR <= r.CorruptedPSNR || s.PSNR > r.BestPSNR+0.5 {
			t.Errorf("%s: PSNR %g not between the corrupted %g and the best rank-2 %g", s.Solver, s.PSNR, r.CorruptedPSNR, r.BestPSNR)
		}
	}
	files := map[string][]byte{}
	for i, img := range r.Images() {
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			t.Fatal(err)
		}
		files[r.ImageFiles()[i]] = b.Bytes()
	}
	var js bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	open := func(name string) ([]byte, error) {
		if b, ok := files[name]; ok {
			return b, nil
		}
		return nil, &missing{name}
	}
	back, err := ReadImage(bytes.NewReader(js.Bytes()), open)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(back.Captions(), "\n") != strings.Join(r.Captions(), "\n") || !bytes.Equal(back.Recovered[0].Pix, r.Recovered[0].Pix) {
		t.Error("the study read back differs")
	}
	delete(files, "astronaut_l1.png")
	if _, err := ReadImage(bytes.NewReader(js.Bytes()), open); err == nil || !strings.Contains(err.Error(), "astronaut_l1.png") {
		t.Errorf("a missing image: %v", err)
	}
}

type missing struct{ name string }

func (m *missing) Error() string { return m.name + ": no such file" }

// TestReportStudies: the studies beyond the paper appear after the
// figures, marked as such, with their panels and images embedded and
// their claims, a failing one shown failing.
func TestReportStudies(t *testing.T) {
	im := imageByHand(17.0, 16.9) // the claim fails
	g := image.NewGray(image.Rect(0, 0, 4, 3))
	im.Original, im.Corrupted, im.Recovered = g, g, []*image.Gray{g, g, g}
	var page bytes.Buffer
	if err := WriteReportWith(&page, nil, Studies{Completion: byHandCompletion(), Image: im}); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	for _, want := range []string{
		`<h2 id="completion">Beyond the paper: matrix completion and robust PCA</h2>`,
		`<h2 id="image">Beyond the paper: a photograph`,
		"Not in the paper", "scaledsm completion --out DIR",
		`<a href="#completion">`, "9 of 9", "0 of 1", "9 of 10",
		"PSNR 17.0 dB", "✗ fails",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if n := strings.Count(html, `src="data:image/png;base64,`); n != len(CompletionPanels)+5 {
		t.Errorf("%d embedded images; want %d", n, len(CompletionPanels)+5)
	}
	if strings.Contains(html, "http") {
		t.Error("the report refers to an address")
	}
}
