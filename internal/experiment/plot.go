package experiment

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/scaledsm/scaledsm"
)

// The authors' colours and markers (their MATLAB scripts' clrs and mks):
// purple and orange for ScaledSM and VanillaSM, then red, green, blue and
// teal.
var (
	palette = []color.Color{
		color.RGBA{R: 128, B: 128, A: 255},
		color.RGBA{R: 255, G: 128, A: 255},
		color.RGBA{R: 255, A: 255},
		color.RGBA{G: 128, A: 255},
		color.RGBA{B: 255, A: 255},
		color.RGBA{G: 128, B: 128, A: 255},
	}
	// MATLAB's 'o', 'x', 'p', 's', 'd', '>': gonum/plot's glyphs where it
	// has them, a star and a diamond of our own where it has not, and its
	// upward triangle for MATLAB's rightward one.
	markers = []draw.GlyphDrawer{draw.RingGlyph{}, draw.CrossGlyph{}, starGlyph{}, draw.SquareGlyph{}, diamondGlyph{}, draw.TriangleGlyph{}}
)

// Size of a panel's image: 8 × 6 inches, 768 × 576 pixels in PNG.
const (
	panelWidth  = 8 * vg.Inch
	panelHeight = 6 * vg.Inch
	pngDPI      = 96
)

// series is one line of a panel: its points, its style and its legend.
type series struct {
	label   string
	xys     plotter.XYs
	color   color.Color
	marker  draw.GlyphDrawer
	dashed  bool
	markers plotter.XYs // where markers go: a subsample of xys
	kept    plotter.XYs // a stalled run's iterate kept to the limit T, dotted
}

// RenderPanel draws panel i of a result in the paper's style and writes it
// to w as "png" or "svg": for an ErrorPanel the relative error on a log
// scale against the iteration count, one line per curve; for a FinalPanel
// the final error max(final, 1e-12) against q, one line per λ; for a
// StepPanel Polyak's step lengths and the fitted geometric schedule. The
// legend names method and parameter, the title the figure and setting.
func RenderPanel(w io.Writer, r *Result, i int, format string) error {
	if i < 0 || i >= len(r.Figure.Panels) || i >= len(r.Panels) {
		return fmt.Errorf("experiment: figure %d has no panel %d", r.Figure.Number, i)
	}
	p := &r.Figure.Panels[i]
	var ss []series
	var xlabel, ylabel string
	switch p.Kind {
	case ErrorPanel:
		ss = errorSeries(p, r.Panels[i])
		xlabel, ylabel = "Iteration count", "Relative error"
	case FinalPanel:
		ss = finalSeries(r.Panels[i])
		xlabel, ylabel = "q", "Final relative error"
	case StepPanel:
		var err error
		if ss, err = stepSeries(r.Panels[i]); err != nil {
			return fmt.Errorf("experiment: figure %d(%s): %w", r.Figure.Number, p.Name, err)
		}
		xlabel, ylabel = "Iteration count", "Step length λ(t)"
	}

	title := fmt.Sprintf("Figure %d(%s): %s\n%s\n%s", r.Figure.Number, p.Name, p.Caption, settingText(r, -1), sharedText(p, r.Panels[i]))
	pl, ss, err := linePlot(title, xlabel, ylabel, ss)
	if err != nil {
		return fmt.Errorf("experiment: figure %d(%s), %w", r.Figure.Number, p.Name, err)
	}
	if p.Kind == FinalPanel {
		// Half a step of the grid beyond its ends, so that the markers
		// at its first and last q are drawn whole.
		pl.X.Min, pl.X.Max = gridQs[0]-0.005, gridQs[len(gridQs)-1]+0.005
		pl.X.Tick.Marker = plot.TickerFunc(func(min, max float64) []plot.Tick {
			var ts []plot.Tick
			for q := 0.80; q <= max+1e-9; q += 0.01 {
				t := plot.Tick{Value: q}
				if k := int(math.Round(q * 100)); k%2 == 0 {
					t.Label = fmt.Sprintf("%.2f", q)
				}
				ts = append(ts, t)
			}
			return ts
		})
	}
	return draw2(w, pl, ss, format)
}

// linePlot sets up a plot in the paper's style, the y axis on a log scale
// in whole decades with room for the legend, the x axis from 0, and adds
// the series that have points (which it returns): lines, dotted
// extensions and markers.
func linePlot(title, xlabel, ylabel string, ss []series) (*plot.Plot, []series, error) {
	pl := plot.New()
	pl.Title.Text = title
	pl.Title.TextStyle.Font = sans(13)
	pl.Title.Padding = vg.Points(6)
	pl.X.Label.Text, pl.Y.Label.Text = xlabel, ylabel
	for _, a := range []*plot.Axis{&pl.X, &pl.Y} {
		a.Label.TextStyle.Font = sans(13)
		a.Tick.Label.Font = sans(11)
	}
	pl.X.Tick.Marker = linearTicks{}
	pl.Y.Scale = plot.LogScale{}
	pl.Y.Tick.Marker = powersOfTen{}
	grid := plotter.NewGrid()
	grid.Horizontal.Color = color.Gray{Y: 220}
	grid.Vertical.Color = color.Gray{Y: 220}
	pl.Add(grid)

	lo, hi, right := math.Inf(1), math.Inf(-1), 0.0
	ss = slices.DeleteFunc(ss, func(s series) bool { return len(s.xys) == 0 })
	for _, s := range ss {
		line, err := plotter.NewLine(s.xys)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", s.label, err)
		}
		line.Color = s.color
		line.Width = vg.Points(1.2)
		if s.dashed {
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		pl.Add(line)
		if len(s.kept) > 0 {
			kept, err := plotter.NewLine(s.kept)
			if err != nil {
				return nil, nil, err
			}
			kept.Color = s.color
			kept.Width = vg.Points(1)
			kept.Dashes = []vg.Length{vg.Points(1.5), vg.Points(2.5)}
			pl.Add(kept)
		}
		if len(s.markers) > 0 {
			sc, err := plotter.NewScatter(s.markers)
			if err != nil {
				return nil, nil, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: s.color, Radius: vg.Points(4), Shape: s.marker}
			pl.Add(sc)
		}
		for _, xy := range s.xys {
			lo, hi = math.Min(lo, xy.Y), math.Max(hi, xy.Y)
		}
		for _, xys := range []plotter.XYs{s.xys, s.kept, s.markers} {
			for _, xy := range xys {
				right = math.Max(right, xy.X)
			}
		}
	}
	pl.X.Min = 0
	// A margin past the last point, so that a curve's end marker is drawn
	// whole, not cut by the frame.
	if right > 0 {
		pl.X.Max = 1.03 * right
	}
	// Whole decades, with room for the legend above the curves.
	if lo > hi { // nothing to draw
		lo, hi = Tol, 1
	}
	pl.Y.Min = math.Pow(10, math.Floor(math.Log10(lo)))
	pl.Y.Max = math.Pow(10, math.Ceil(math.Log10(hi))+0.3)
	return pl, ss, nil
}

// draw2 draws the plot and, over it, the legend in a boxed corner where it
// hides the fewest points, and writes the image.
func draw2(w io.Writer, pl *plot.Plot, ss []series, format string) error {
	c, err := imageCanvas(panelWidth, panelHeight, format)
	if err != nil {
		return err
	}
	dc := draw.New(c)
	pl.Draw(dc)
	da := pl.DataCanvas(dc)

	leg := plot.NewLegend()
	leg.TextStyle.Font = sans(12)
	leg.ThumbnailWidth = vg.Points(30)
	leg.Top, leg.Left = true, true
	for _, s := range ss {
		var thumbs []plot.Thumbnailer
		line := &plotter.Line{XYs: nil, LineStyle: draw.LineStyle{Color: s.color, Width: vg.Points(1.2)}}
		if s.dashed {
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		thumbs = append(thumbs, line)
		if len(s.markers) > 0 {
			thumbs = append(thumbs, &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: s.color, Radius: vg.Points(4), Shape: s.marker}})
		}
		leg.Add(s.label, thumbs...)
	}
	// The legend's box.
	em := leg.TextStyle.Rectangle("M").Max.X
	width, height := vg.Length(0), vg.Length(0)
	entry := vg.Length(0)
	for _, s := range ss {
		r := leg.TextStyle.Rectangle(s.label)
		width = max(width, r.Max.X)
		entry = max(entry, r.Max.Y)
	}
	leg.Padding = vg.Points(3)
	height = vg.Length(len(ss))*entry + vg.Length(len(ss)-1)*leg.Padding
	margin := em / 2
	boxW := leg.ThumbnailWidth + em/2 + width + 2*margin
	boxH := height + 2*margin
	inset := vg.Points(6)

	xf, yf := pl.Transforms(&da)
	corners := []vg.Point{
		{X: da.Max.X - inset - boxW, Y: da.Max.Y - inset - boxH}, // top right, as the paper
		{X: da.Min.X + inset, Y: da.Min.Y + inset},               // bottom left
		{X: da.Max.X - inset - boxW, Y: da.Min.Y + inset},        // bottom right
		{X: da.Min.X + inset, Y: da.Max.Y - inset - boxH},        // top left
	}
	best, bestHidden := corners[0], math.MaxInt
	for _, at := range corners {
		hidden := 0
		for _, s := range ss {
			for _, xy := range s.xys {
				x, y := xf(xy.X), yf(xy.Y)
				if x >= at.X && x <= at.X+boxW && y >= at.Y && y <= at.Y+boxH {
					hidden++
				}
			}
		}
		if hidden < bestHidden {
			best, bestHidden = at, hidden
		}
	}
	box := vg.Rectangle{Min: best, Max: vg.Point{X: best.X + boxW, Y: best.Y + boxH}}
	dc.SetColor(color.White)
	dc.Fill(box.Path())
	dc.SetLineStyle(draw.LineStyle{Color: color.Gray{Y: 150}, Width: vg.Points(0.6)})
	dc.Stroke(box.Path())
	inner := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: box.Min.X + margin, Y: box.Min.Y + margin},
		Max: vg.Point{X: box.Max.X - margin, Y: box.Max.Y - margin},
	}}
	leg.Draw(inner)
	_, err = c.WriteTo(w)
	return err
}

// imageCanvas returns a canvas of the given size that writes "png" (at
// pngDPI) or "svg".
func imageCanvas(width, height vg.Length, format string) (vg.CanvasWriterTo, error) {
	switch format {
	case "png":
		return vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(pngDPI))}, nil
	case "svg":
		return vgsvg.New(width, height), nil
	}
	return nil, fmt.Errorf("experiment: unknown image format %q (want png or svg)", format)
}

// every returns the spacing of markers on lines of up to n iterations:
// about 50 markers on the longest.
func every(n int) int { return max(1, (n+49)/50) }

// errorSeries is the lines of an ErrorPanel: the relative error at every
// iterate, coloured by method (ScaledSM purple, VanillaSM orange) with a
// marker per parameter value, as the paper's Figures 1 to 4; or, when a
// panel has one method (Figures 5 and 6), coloured and marked per curve.
func errorSeries(p *Panel, runs []Run) []series {
	oneMethod := true
	longest := 0
	for _, r := range runs {
		oneMethod = oneMethod && r.Curve.Method == runs[0].Curve.Method
		longest = max(longest, len(r.Trace))
	}
	step := every(longest)
	var ss []series
	index := map[scaledsm.Method]int{}
	for j, r := range runs {
		s := series{}
		k := index[r.Curve.Method] // the curve's place among its method's
		index[r.Curve.Method]++
		if oneMethod {
			s.color, s.marker = palette[j%len(palette)], markers[j%len(markers)]
			s.label = curveLabel(p, r.Curve, false)
		} else {
			s.color = palette[int(r.Curve.Method)%len(palette)]
			s.marker = markers[k%len(markers)]
			s.label = curveLabel(p, r.Curve, true)
		}
		for _, it := range r.Trace {
			if it.RelError > 0 && !math.IsInf(it.RelError, 0) {
				s.xys = append(s.xys, plotter.XY{X: float64(it.Iter), Y: it.RelError})
			}
		}
		// Markers staggered across curves so that they do not overlap.
		off := (j * step) / max(len(runs), 1)
		for i := off; i < len(s.xys); i += step {
			s.markers = append(s.markers, s.xys[i])
		}
		// A noisy run that stalled at its floor (a zero Polyak step) keeps
		// its iterate: its error stays put to the iteration limit.
		if n := len(r.Trace); n > 0 && len(s.xys) > 0 && !math.IsInf(r.Curve.Setting.SNR, 1) {
			if end := r.Trace[n-1]; end.StepLength == 0 && end.Iter < r.Curve.MaxIter {
				last := s.xys[len(s.xys)-1]
				s.kept = plotter.XYs{last, {X: float64(r.Curve.MaxIter), Y: last.Y}}
			}
		}
		ss = append(ss, s)
	}
	return ss
}

// curveLabel names a curve in a legend: "ScaledSM κ=5", "λ=2",
// "Polyak's stepsizes".
func curveLabel(p *Panel, c Curve, withMethod bool) string {
	if c.Step.Rule == Polyak && p.Vary >= Lambda {
		return "Polyak's stepsizes"
	}
	label := p.Vary.Format(c)
	if withMethod {
		label = c.Method.Name() + " " + label
	}
	return label
}

// divergedMark is where a FinalPanel puts a run that diverged to a
// non-finite error: above every finite one (a run is declared diverged
// past a relative error of 1e3).
const divergedMark = 1e4

// finalSeries is the lines of a FinalPanel: the final relative error of
// each geometric run, at least 1e-12, against q, one line per λ.
func finalSeries(runs []Run) []series {
	var ss []series
	at := map[float64]int{}
	for _, r := range runs {
		l := r.Curve.Step.Lambda
		k, ok := at[l]
		if !ok {
			k = len(ss)
			at[l] = k
			ss = append(ss, series{label: "λ=" + num(l), color: palette[k%len(palette)], marker: markers[k%len(markers)]})
		}
		final := r.Final()
		if math.IsNaN(final) || math.IsInf(final, 0) {
			final = divergedMark
		}
		ss[k].xys = append(ss[k].xys, plotter.XY{X: r.Curve.Step.Q, Y: max(final, Tol)})
	}
	for k := range ss {
		ss[k].markers = ss[k].xys
	}
	return ss
}

// stepSeries is the lines of a StepPanel: the Polyak run's step lengths
// λ_t and the geometric schedule fitted to them.
func stepSeries(runs []Run) ([]series, error) {
	for _, r := range runs {
		if r.Curve.Step.Rule != Polyak {
			continue
		}
		fit, err := FitGeometric(r.Trace)
		if err != nil {
			return nil, err
		}
		polyak := series{label: "Polyak's stepsizes", color: palette[0], marker: markers[0]}
		for _, it := range r.Trace {
			if it.StepLength > 0 && !math.IsInf(it.StepLength, 1) {
				polyak.xys = append(polyak.xys, plotter.XY{X: float64(len(polyak.xys)), Y: it.StepLength})
			}
		}
		geo := series{label: fmt.Sprintf("closest geometric: λ=%.3g, q=%.3g", fit.Lambda, fit.Q), color: palette[1], marker: markers[1]}
		for t := range fit.Points {
			geo.xys = append(geo.xys, plotter.XY{X: float64(t), Y: fit.Lambda * math.Pow(fit.Q, float64(t))})
		}
		step := every(fit.Points) * 2
		for i := 0; i < len(polyak.xys); i += step {
			polyak.markers = append(polyak.markers, polyak.xys[i])
			geo.markers = append(geo.markers, geo.xys[i])
		}
		return []series{polyak, geo}, nil
	}
	return nil, fmt.Errorf("no Polyak run to fit")
}

// settingText describes the setting of panel i of a result: the problem,
// its sizes and seed, then the settings its curves share. For i < 0, it
// describes the figure: the problem, its sizes and the seed.
func settingText(r *Result, i int) string {
	c := r.Config
	name := map[string]string{"ms": "matrix sensing", "qs": "quadratic sampling"}[c.Kind.String()]
	s := fmt.Sprintf("%s, n=%d, r=%d, m=%d, seed %d", name, c.N1, c.Rank, c.M, c.Seed)
	if i < 0 || i >= len(r.Panels) || i >= len(r.Figure.Panels) {
		return s
	}
	return s + "; " + sharedText(&r.Figure.Panels[i], r.Panels[i])
}

// sharedText lists the settings the curves of a panel share: "κ=10,
// p_s=0.2, no noise, ScaledSM, Polyak's steps, T=1000".
func sharedText(p *Panel, runs []Run) string {
	if len(runs) == 0 {
		return ""
	}
	var parts []string
	first := runs[0].Curve
	same := func(f func(Curve) any) bool {
		for _, run := range runs {
			if f(run.Curve) != f(first) {
				return false
			}
		}
		return true
	}
	if same(func(c Curve) any { return c.Setting.Kappa }) {
		parts = append(parts, "κ="+num(first.Setting.Kappa))
	}
	if same(func(c Curve) any { return c.Setting.PS }) {
		parts = append(parts, "p_s="+num(first.Setting.PS))
	}
	if same(func(c Curve) any { return c.Setting.SNR }) {
		if math.IsInf(first.Setting.SNR, 1) {
			parts = append(parts, "no noise")
		} else {
			parts = append(parts, "SNR="+num(first.Setting.SNR)+"dB")
		}
	}
	if same(func(c Curve) any { return c.Method }) {
		parts = append(parts, first.Method.Name())
	}
	if same(func(c Curve) any { return c.Step.Rule }) {
		if first.Step.Rule == Polyak {
			parts = append(parts, "Polyak's steps")
		} else {
			parts = append(parts, "geometric steps")
		}
	}
	if same(func(c Curve) any { return c.MaxIter }) {
		parts = append(parts, fmt.Sprintf("T=%d", first.MaxIter))
	}
	return strings.Join(parts, ", ")
}
