package experiment

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/scaledsm/scaledsm"
)

// purplePixels counts the pixels of the image in the colour of ScaledSM's
// curves (or of the first curve of a one-method panel).
func purplePixels(t *testing.T, data []byte) int {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 768 || b.Dy() != 576 {
		t.Errorf("image is %d×%d, want 768×576", b.Dx(), b.Dy())
	}
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 > 100 && r>>8 < 150 && g>>8 < 30 && bl>>8 > 100 && bl>>8 < 150 {
				n++
			}
		}
	}
	return n
}

func TestRenderPanels(t *testing.T) {
	kappaFig := byHand(t, 1, func(p *Panel, c Curve) []scaledsm.Iteration {
		if c.Method == scaledsm.ScaledSM {
			return converging(200)
		}
		return flooring(0.98, 1e-6, 1000)
	})
	onlyVanilla := byHand(t, 1, func(p *Panel, c Curve) []scaledsm.Iteration {
		if c.Method == scaledsm.ScaledSM {
			return nil // nothing to draw for ScaledSM
		}
		return flooring(0.98, 1e-6, 1000)
	})
	stepFig := byHand(t, 5, func(p *Panel, c Curve) []scaledsm.Iteration {
		if c.Step.Rule == Polyak {
			return polyakLengths(1.9, 0.91, 250)
		}
		if c.Step.Lambda == 1 {
			return flooring(0.9, 1e-2, 1000) // a line of its own in panel (a)
		}
		return converging(300)
	})
	for _, c := range []struct {
		name  string
		r     *Result
		panel int
	}{{"error", kappaFig, 1}, {"final", stepFig, 0}, {"steps", stepFig, 3}, {"one method", stepFig, 2}} {
		var img bytes.Buffer
		if err := RenderPanel(&img, c.r, c.panel, "png"); err != nil {
			t.Fatalf("%s panel: %v", c.name, err)
		}
		// The first series is purple, as in the paper: ScaledSM, λ=1 or
		// Polyak's steps (the geometric schedule fitted to them is drawn
		// over them, leaving a few dozen purple pixels of the line and its
		// rings; without the series there are none).
		if n := purplePixels(t, img.Bytes()); n < 15 {
			t.Errorf("%s panel: %d purple pixels, want a purple curve", c.name, n)
		}
		var svg bytes.Buffer
		if err := RenderPanel(&svg, c.r, c.panel, "svg"); err != nil {
			t.Fatalf("%s panel as SVG: %v", c.name, err)
		}
		checkSVG(t, svg.Bytes())
	}
	// Without ScaledSM's curves there is no purple: the count above sees
	// the curves, not the frame.
	var img bytes.Buffer
	if err := RenderPanel(&img, onlyVanilla, 1, "png"); err != nil {
		t.Fatal(err)
	}
	if n := purplePixels(t, img.Bytes()); n > 0 {
		t.Errorf("%d purple pixels without a ScaledSM curve", n)
	}

	empty := byHand(t, 3, func(p *Panel, c Curve) []scaledsm.Iteration { return nil })
	if err := RenderPanel(io.Discard, empty, 0, "png"); err != nil {
		t.Errorf("a panel without data: %v", err)
	}
	if err := RenderPanel(io.Discard, kappaFig, 0, "gif"); err == nil || !strings.Contains(err.Error(), `"gif"`) {
		t.Errorf("gif: error %v", err)
	}
	if err := RenderPanel(io.Discard, kappaFig, 2, "png"); err == nil {
		t.Error("figure 1 has no third panel, yet it rendered")
	}
	noPolyak := byHand(t, 6, func(p *Panel, c Curve) []scaledsm.Iteration { return converging(10) })
	noPolyak.Panels[3] = nil
	if err := RenderPanel(io.Discard, noPolyak, 3, "png"); err == nil {
		t.Error("a step panel without a Polyak run rendered")
	}
}

// checkSVG checks that data is well-formed XML with an svg root.
func checkSVG(t *testing.T, data []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		t.Errorf("SVG root element is %q", root)
	}
}

func TestTicks(t *testing.T) {
	var labels []string
	for _, tk := range (linearTicks{}).Ticks(0, 1000) {
		labels = append(labels, tk.Label)
	}
	if got := strings.Join(labels, " "); got != "0 100 200 300 400 500 600 700 800 900 1000" {
		t.Errorf("linear ticks on [0, 1000]: %s", got)
	}
	labels = labels[:0]
	for _, tk := range (powersOfTen{}).Ticks(1e-13, 10) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := strings.Join(labels, " "); got != "1e-12 1e-10 1e-8 1e-6 1e-4 1e-2 1e0" {
		t.Errorf("log ticks on [1e-13, 10]: %s", got)
	}
	for _, tk := range (powersOfTen{}).Ticks(1e-13, 10) {
		if e := math.Log10(tk.Value); math.Abs(e-math.Round(e)) > 1e-9 {
			t.Errorf("log tick at %v is not a power of ten", tk.Value)
		}
	}
}
