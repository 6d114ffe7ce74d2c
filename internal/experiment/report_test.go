package experiment

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"regexp"
	"strings"
	"testing"

	"github.com/scaledsm/scaledsm"
)

func TestReportSelfContained(t *testing.T) {
	kappaFig := byHand(t, 2, func(p *Panel, c Curve) []scaledsm.Iteration {
		if c.Method == scaledsm.ScaledSM {
			return converging(200)
		}
		// VanillaSM as fast as ScaledSM: "slows with κ" must fail.
		return converging(210)
	})
	stepFig := byHand(t, 6, func(p *Panel, c Curve) []scaledsm.Iteration {
		if c.Step.Rule == Polyak {
			return polyakLengths(1.4, 0.88, 250)
		}
		return converging(300)
	})
	var page bytes.Buffer
	if err := WriteReport(&page, []*Result{kappaFig, stepFig}); err != nil {
		t.Fatal(err)
	}
	html := page.String()

	// Nothing is fetched from elsewhere: no addresses, scripts, style
	// sheets or frames; every image is embedded.
	refs := regexp.MustCompile(`(?i)(src|href)\s*=\s*"[^"]*"|<[a-z]+|url\(|@import`).FindAllString(html, -1)
	for _, ref := range refs {
		if strings.HasPrefix(ref, `src="data:image/png;base64,`) {
			continue
		}
		for _, bad := range []string{"http:", "https:", "//", "<script", "<link", "<iframe", "<object", "<embed", "@import", "url("} {
			if strings.Contains(strings.ToLower(ref), bad) {
				t.Errorf("report refers outside itself: %q", ref)
			}
		}
	}
	imgs := regexp.MustCompile(`<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"`).FindAllStringSubmatch(html, -1)
	if len(imgs) != 2+4 {
		t.Errorf("report embeds %d images, want the 6 panels", len(imgs))
	}
	for _, m := range imgs {
		data, err := base64.StdEncoding.DecodeString(m[1])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(bytes.NewReader(data)); err != nil {
			t.Errorf("embedded image is not a PNG: %v", err)
		}
	}
	if n := strings.Count(html, "<img "); n != len(imgs) {
		t.Errorf("%d images, %d of them embedded as PNG", n, len(imgs))
	}

	// The claims: one row each, with the verdict.
	claims := len(kappaFig.Figure.Claims) + len(stepFig.Figure.Claims)
	if n := strings.Count(html, "holds</td>") + strings.Count(html, "fails</td>"); n != claims {
		t.Errorf("%d verdicts in the report, want %d", n, claims)
	}
	for _, want := range []string{
		`<td class="fails">✗ fails</td>`, "VanillaSM slows with κ",
		"quadratic sampling, n=100, r=5, m=0, seed 0", // the hand-made config
		"QS_l1_stepsizes.m",                           // figure 6's note on λ in panel (c)
		"λ = 1.4, q = 0.88",
		"4 of 6", // figure 2: its two "slows" claims fail
		"<td>Figure 5</td><td colspan=\"2\">not run into this directory: <code>scaledsm figure 5 --out DIR</code>",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestReportEmpty(t *testing.T) {
	var page bytes.Buffer
	if err := WriteReport(&page, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "No figure has been run") {
		t.Error("an empty report does not say so")
	}
}
