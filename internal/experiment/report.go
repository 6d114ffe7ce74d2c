package experiment

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html"
	"html/template"
	"image/png"
	"io"
	"strings"
	"time"
)

// WriteReport writes an HTML page that stands alone (no external files or
// addresses; the panels are embedded as PNG) with, for each result in
// order, the figure's setting, every panel, and the table of the paper's
// claims checked on its traces.
func WriteReport(w io.Writer, results []*Result) error {
	return WriteReportWith(w, results, Studies{})
}

// Studies are the measurements beyond the paper that the report shows
// after its figures, each when not nil.
type Studies struct {
	Completion *CompletionResult
	Image      *ImageResult
	OverSpec   *OverSpecResult
	Phase      *PhaseResult
}

// embedPNG returns an <img> tag holding a PNG. The tag is written whole
// so that the base64 text stays as it is (html/template would escape its
// '+' signs).
func embedPNG(b []byte, alt string, w, h int) template.HTML {
	return template.HTML(`<img src="data:image/png;base64,` + base64.StdEncoding.EncodeToString(b) +
		`" alt="` + html.EscapeString(alt) + fmt.Sprintf(`" width="%d" height="%d">`, w, h))
}

// WriteReportWith writes the report of WriteReport with, after the
// paper's figures, the studies beyond the paper: their panels or images
// and their claims.
func WriteReportWith(w io.Writer, results []*Result, st Studies) error {
	page := reportPage{}
	for _, r := range results {
		f := reportFigure{
			Number:  r.Figure.Number,
			Caption: r.Figure.Caption,
			Note:    r.Figure.Note,
			Setting: fmt.Sprintf("%s; %d distinct runs, %d iterations in all.", settingText(r, -1), r.Runs, r.Iterations),
			Time:    fmt.Sprintf("%s on %s", r.Elapsed.Round(100*time.Millisecond), orUnknown(r.Machine)),
			Command: command(r),
		}
		for i, p := range r.Figure.Panels {
			var png bytes.Buffer
			if err := RenderPanel(&png, r, i, "png"); err != nil {
				return err
			}
			alt := fmt.Sprintf("Figure %d(%s): %s", r.Figure.Number, p.Name, p.Caption)
			img := embedPNG(png.Bytes(), alt, 768, 576)
			f.Panels = append(f.Panels, reportPanel{
				Name:    p.Name,
				Caption: p.Caption + "; " + sharedText(&p, r.Panels[i]),
				Image:   img,
				Files:   fmt.Sprintf("%s, %s", PanelName(r.Figure.Number, p.Name, "png"), PanelName(r.Figure.Number, p.Name, "svg")),
			})
			if p.Kind == StepPanel {
				for _, run := range r.Panels[i] {
					if run.Curve.Step.Rule != Polyak {
						continue
					}
					if fit, err := FitGeometric(run.Trace); err == nil {
						f.Fit = fmt.Sprintf("Panel (%s): the geometric schedule fitted to Polyak's %d step lengths is λ = %.3g, q = %.3g.",
							p.Name, fit.Points, fit.Lambda, fit.Q)
					}
				}
			}
		}
		f.Verdicts = Check(r)
		for _, v := range f.Verdicts {
			if v.Holds {
				f.Holds++
			}
		}
		page.Holds += f.Holds
		page.Claims += len(f.Verdicts)
		page.Figures = append(page.Figures, f)
	}
	if len(results) > 0 {
		have := map[int]bool{}
		for _, r := range results {
			have[r.Figure.Number] = true
		}
		for n := 1; n <= 6; n++ {
			if !have[n] {
				page.Missing = append(page.Missing, n)
			}
		}
	}
	if err := page.addStudies(st); err != nil {
		return err
	}
	return reportTemplate.Execute(w, page)
}

// addStudies adds the studies beyond the paper to the page.
func (page *reportPage) addStudies(st Studies) error {
	if c := st.Completion; c != nil {
		cfg := c.Config
		s := reportStudy{
			ID:    "completion",
			Title: "Beyond the paper: matrix completion and robust PCA",
			Text: fmt.Sprintf("The entry models' default method (completion.DefaultSettings: ScaledGD on the trimmed least squares l2trim, "+
				"constant step 0.5, spectral start with the median trimming, told nothing of the outliers) on the synthetic recipe "+
				"n1 = n2 = %d, r = %d, p = %g, outliers of the paper's law, no noise; runs stop at a relative error of %g, "+
				"the default method within %d iterations and the methods shown for contrast within %d. "+
				"(a) κ = %s at p_s = %g over seeds %s (the contrasts on seed %d); (b)–(e) at κ = %g on seed %d.",
				cfg.N, cfg.Rank, cfg.P, cfg.Tol, cfg.MaxIter, cfg.ContrastIter, joinNums(cfg.Kappas), cfg.PS,
				seedList(cfg.Seeds), cfg.Seeds[0], cfg.Kappa, cfg.Seeds[0]),
			Time:     fmt.Sprintf("%.1f s on %s", c.Seconds, orUnknown(c.Machine)),
			Command:  "scaledsm completion --out DIR",
			Verdicts: c.Claims(),
		}
		for i, p := range CompletionPanels {
			var b bytes.Buffer
			if err := RenderCompletion(&b, c, i, "png"); err != nil {
				return err
			}
			s.Panels = append(s.Panels, reportPanel{Name: p.Name, Caption: p.Caption,
				Image: embedPNG(b.Bytes(), "Completion study ("+p.Name+"): "+p.Caption, 768, 576),
				Files: CompletionPanelName(p.Name, "png") + ", " + CompletionPanelName(p.Name, "svg")})
		}
		page.add(s)
	}
	if im := st.Image; im != nil {
		cfg := im.Config
		s := reportStudy{
			ID:    "image",
			Title: "Beyond the paper: a photograph with missing and corrupted pixels",
			Text: fmt.Sprintf("NASA's public-domain photograph of the astronaut Eileen Collins (scikit-image's astronaut, in gray, %d × %d, "+
				"pixels in [0, 1]): %g%% of the pixels seen, %g%% of those replaced by 0 or 1 (salt and pepper), seed %d; "+
				"recovered at rank %d, each method from the spectral start with the median trimming, at most %d iterations "+
				"to a relative change of %g, the result clipped to [0, 1]. PSNR = 10 log10(1/MSE) against the original over all pixels; "+
				"the corrupted input counts its hidden pixels as 0. The best rank-%d approximation of the original has a PSNR of %.1f dB. "+
				"The default method (completion.DefaultSettings) keeps an exact fit and otherwise chooses its ridge penalty and its "+
				"iterations on 5%% of the pixels seen, held out (completion.ChooseRidge); it is also fitted at the ranks %v.",
				im.Width, im.Height, 100*cfg.Observed, 100*cfg.Salt, cfg.Seed, cfg.Rank, cfg.MaxIter, cfg.Tol, cfg.Rank, im.BestPSNR, cfg.Ranks),
			Time:     fmt.Sprintf("%.1f s on %s", im.Seconds, orUnknown(im.Machine)),
			Command:  "scaledsm completion --out DIR",
			Verdicts: im.Claims(),
		}
		names, caps := im.ImageFiles(), im.Captions()
		for i, img := range im.Images() {
			var b bytes.Buffer
			if err := png.Encode(&b, img); err != nil {
				return err
			}
			s.Images = append(s.Images, reportPanel{Caption: caps[i], Files: names[i],
				Image: embedPNG(b.Bytes(), caps[i], img.Bounds().Dx(), img.Bounds().Dy())})
		}
		page.add(s)
	}
	if o := st.OverSpec; o != nil {
		cfg := o.Config
		factors := make([]float64, len(cfg.Factors))
		for i, f := range cfg.Factors {
			factors[i] = float64(f)
		}
		page.add(reportStudy{
			ID:    "overspec",
			Title: "Beyond the paper: an over-specified rank, damping and random starts",
			Text: fmt.Sprintf("ScaledSM with the automatic damping of its preconditioner, without it (the paper's), from a small random start, "+
				"and VanillaSM, fitting %s times the true rank on matrix sensing (n = %d, r = %d) and quadratic sampling (n = %d, r = %d), "+
				"m = 8·n·(fitted rank), κ = %s, p_s = %g, Polyak's step with the known f(X*), to a relative error of %g within %d iterations "+
				"(VanillaSM %d), seed %d. The iterations of every run are in overspec.md.",
				joinNums(factors), cfg.Sensing.N1, cfg.Sensing.Rank, cfg.Quadratic.N1, cfg.Quadratic.Rank,
				joinNums(cfg.Kappas), cfg.PS, cfg.Tol, cfg.MaxIter, cfg.VanillaIter, cfg.Seed),
			Command:  "scaledsm overspec --out DIR",
			Verdicts: o.Claims(),
		})
	}
	if ph := st.Phase; ph != nil {
		cfg := ph.Config
		shapes := make([]string, len(cfg.Shapes))
		for i, s := range cfg.Shapes {
			shapes[i] = fmt.Sprintf("%d×%d", s[0], s[1])
		}
		s := reportStudy{
			ID:    "phase",
			Title: "Beyond the recipe: where robust PCA succeeds",
			Text: fmt.Sprintf("Robust PCA (every entry observed) of rank %d at the shapes %s, κ = %s, p_s = %s, seeds %s, "+
				"with the outliers at random entries, in whole columns (X* judged on the other columns) or in clustered blocks "+
				"(one value each, as objects in a video); a run succeeds at a relative error of %s. The default method "+
				"(completion.DefaultSettings, told nothing of the outliers, to a relative change of %s or %d iterations) against "+
				"principal component pursuit by the inexact ALM (λ = 1/√max(n1, n2)) and ScaledGD with the sparse estimate T_α "+
				"(α = 2 p_s, told the outlier fraction), both written for this study in package experiment. "+
				"Each cell counts the seeds that succeeded; every run is in phase.csv.",
				cfg.Rank, strings.Join(shapes, ", "), joinNums(cfg.Kappas), joinNums(cfg.PSs), seedList(cfg.Seeds),
				sci(cfg.Success), sci(cfg.Success/100), cfg.MaxIter),
			Time:     fmt.Sprintf("%.1f s on %s", ph.Seconds, orUnknown(ph.Machine)),
			Command:  "scaledsm phase --out DIR",
			Verdicts: ph.Claims(),
		}
		for _, m := range cfg.Models {
			var b bytes.Buffer
			if err := RenderPhase(&b, ph, m, "png"); err != nil {
				return err
			}
			size, err := png.DecodeConfig(bytes.NewReader(b.Bytes()))
			if err != nil {
				return err
			}
			s.Images = append(s.Images, reportPanel{Caption: string(m) + " outliers", Files: PhasePanelName(m, "png") + ", " + PhasePanelName(m, "svg"),
				Image: embedPNG(b.Bytes(), "Phase study: "+string(m)+" outliers", size.Width, size.Height)})
		}
		page.add(s)
	}
	return nil
}

func (page *reportPage) add(s reportStudy) {
	for _, v := range s.Verdicts {
		if v.Holds {
			s.Holds++
		}
	}
	page.Holds += s.Holds
	page.Claims += len(s.Verdicts)
	page.Studies = append(page.Studies, s)
}

func orUnknown(s string) string {
	if s == "" {
		return "an unrecorded machine"
	}
	return s
}

// command returns the command line that reproduces a result.
func command(r *Result) string {
	cmd := fmt.Sprintf("scaledsm figure %d --out DIR", r.Figure.Number)
	if r.Config.Seed != 1 {
		cmd += fmt.Sprintf(" --seed %d", r.Config.Seed)
	}
	if r.Config.N1 != r.Figure.Problem.N1 {
		cmd += fmt.Sprintf(" --n %d", r.Config.N1)
	}
	if r.Config.Rank != r.Figure.Problem.Rank {
		cmd += fmt.Sprintf(" --r %d", r.Config.Rank)
	}
	return cmd
}

type reportPage struct {
	Figures       []reportFigure
	Studies       []reportStudy
	Holds, Claims int
	Missing       []int // figures not in the report
}

type reportFigure struct {
	Number                 int
	Caption, Note, Setting string
	Time, Command, Fit     string
	Panels                 []reportPanel
	Verdicts               []Verdict
	Holds                  int
}

// reportStudy is a study beyond the paper: its panels (plots) or images
// and its claims.
type reportStudy struct {
	ID, Title, Text, Time, Command string
	Panels, Images                 []reportPanel
	Verdicts                       []Verdict
	Holds                          int
}

type reportPanel struct {
	Name, Caption, Files string
	Image                template.HTML // the whole <img> tag
}

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"join": strings.Join,
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>scaledsm: the figures of Tong, Ma and Chi, reproduced</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; max-width: 1250px; margin: 2em auto; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.3em; margin-top: 2.2em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; }
.panels { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 1em; }
figure { margin: 0; }
figure img { width: 100%; height: auto; border: 1px solid #ddd; }
.images { display: grid; grid-template-columns: repeat(auto-fit, minmax(280px, 1fr)); gap: 0.8em; }
figcaption { font-size: 0.9em; color: #444; text-align: center; }
table { border-collapse: collapse; width: 100%; font-size: 0.92em; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 0.35em 0.5em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.holds { color: #0a6b0a; font-weight: bold; white-space: nowrap; }
td.fails { color: #b00020; font-weight: bold; white-space: nowrap; }
code { background: #f5f5f5; padding: 0 0.2em; }
.note { background: #fff8e1; border-left: 4px solid #f0b400; padding: 0.4em 0.8em; }
.meta { color: #444; font-size: 0.93em; }
</style>
</head>
<body>
<h1>The figures of Tong, Ma and Chi, reproduced</h1>
<p>Section 4 of <em>Low-Rank Matrix Recovery with Scaled Subgradient Methods: Fast and Robust
Convergence Without the Condition Number</em> (Tong, Ma and Chi), rerun with <code>scaledsm</code>.
Every curve of a figure shares one draw of the operator, the truth's singular vectors, the outlier
signs and support, and the noise, so the curves differ only by what the panel varies; the curves of
one setting also share the truncated spectral initialization. Runs stop at a relative error of
1e-12, at divergence (above 1e3) or at the iteration limit T; a Polyak step that would be zero or
negative (f(X<sub>t</sub>) ≤ f(X*), the noise floor) ends the run with the iterate kept.
The data of each figure is in <code>figureN.csv</code> (one row per panel, curve and iteration),
its panels in <code>figureNx.png</code> and <code>.svg</code>.</p>
{{if or .Figures .Studies}}
<table>
<tr><th>figure</th><th>claims that hold</th><th>time</th></tr>
{{range .Figures}}<tr><td><a href="#figure{{.Number}}">Figure {{.Number}}</a></td><td>{{.Holds}} of {{len .Verdicts}}</td><td>{{.Time}}</td></tr>
{{end}}{{range .Missing}}<tr><td>Figure {{.}}</td><td colspan="2">not run into this directory: <code>scaledsm figure {{.}} --out DIR</code></td></tr>
{{end}}{{range .Studies}}<tr><td><a href="#{{.ID}}">{{.Title}}</a></td><td>{{.Holds}} of {{len .Verdicts}}</td><td>{{.Time}}</td></tr>
{{end}}<tr><th>all</th><th>{{.Holds}} of {{.Claims}}</th><th></th></tr>
</table>
{{else}}
<p>No figure has been run into this directory yet.</p>
{{end}}
{{range .Figures}}
<h2 id="figure{{.Number}}">Figure {{.Number}}</h2>
<p>{{.Caption}}</p>
<p class="meta">Setting: {{.Setting}}<br>
Run time: {{.Time}}.<br>
Reproduce with <code>{{.Command}}</code>.</p>
{{if .Note}}<p class="note">{{.Note}}</p>{{end}}
<div class="panels">
{{range .Panels}}<figure>{{.Image}}<figcaption>({{.Name}}) {{.Caption}} — {{.Files}}</figcaption></figure>
{{end}}</div>
{{if .Fit}}<p>{{.Fit}}</p>{{end}}
<table>
<tr><th>panel</th><th>claim</th><th>expected</th><th>measured</th><th>holds</th></tr>
{{range .Verdicts}}<tr><td>({{.Panel}})</td><td>{{.Claim}}</td><td>{{.Expected}}</td><td>{{.Measured}}</td>{{if .Holds}}<td class="holds">✓ holds</td>{{else}}<td class="fails">✗ fails</td>{{end}}</tr>
{{end}}</table>
{{end}}
{{range .Studies}}
<h2 id="{{.ID}}">{{.Title}}</h2>
<p class="note">Not in the paper: measured here (issue 13), with the claims this project makes about it.</p>
<p>{{.Text}}</p>
<p class="meta">Run time: {{.Time}}.<br>
Reproduce with <code>{{.Command}}</code> (also run by <code>scaledsm reproduce</code>).</p>
{{if .Panels}}<div class="panels">
{{range .Panels}}<figure>{{.Image}}<figcaption>({{.Name}}) {{.Caption}} — {{.Files}}</figcaption></figure>
{{end}}</div>{{end}}
{{if .Images}}<div class="images">
{{range .Images}}<figure>{{.Image}}<figcaption>{{.Caption}} — {{.Files}}</figcaption></figure>
{{end}}</div>{{end}}
<table>
<tr><th>panel</th><th>claim</th><th>expected</th><th>measured</th><th>holds</th></tr>
{{range .Verdicts}}<tr><td>({{.Panel}})</td><td>{{.Claim}}</td><td>{{.Expected}}</td><td>{{.Measured}}</td>{{if .Holds}}<td class="holds">✓ holds</td>{{else}}<td class="fails">✗ fails</td>{{end}}</tr>
{{end}}</table>
{{end}}
<h2>How the curves are drawn</h2>
<p>As in the authors' MATLAB scripts: the relative error ‖X<sub>t</sub> − X*‖<sub>F</sub>/‖X*‖<sub>F</sub> on a
log scale against the iteration count, iteration 0 being the initialization; ScaledSM in purple and
VanillaSM in orange with one marker per parameter value in Figures 1–4; one colour and marker per
curve in Figures 5 and 6. Lines pass through every iterate; markers sit on a staggered subsample.
Panels (a) of Figures 5 and 6 show max(final error, 1e-12) against q, one line per λ; a run that
diverged shows its last error (above 1e3). The authors' script shows 1e-12 for any run that stopped
early, diverged ones included, because it reads the last entry of a preallocated array of zeros.
A noisy run whose Polyak step becomes zero (f(X<sub>t</sub>) ≤ f(X*): it has reached its noise floor)
stops there with its iterate kept; a dotted line carries its error on to the iteration limit T.
Without noise but with many outliers a Polyak run can stall the same way just above 1e-12 (the
claims tables say "stalled"): f(X<sub>t</sub>) − f(X*) has fallen to the rounding error of the
loss, a sum of m terms dominated by the outliers.
Panels (d) fit log λ<sub>t</sub> = log λ + t log q by least squares over Polyak's positive step
lengths λ<sub>t</sub> = (f(X<sub>t</sub>) − f(X*))/‖subgradient‖ (in the scaled metric), t counted from 0.</p>
</body>
</html>
`))
