package experiment

import (
	"fmt"
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PhasePanelName is the file of the study's map for an outlier model:
// phase_random.png.
func PhasePanelName(model OutlierModel, ext string) string {
	return "phase_" + string(model) + "." + ext
}

// RenderPhase draws the success map of one outlier model: a row of blocks
// per shape, a block per method, in each block a cell per κ (across) and
// p_s (down) shaded by the fraction of the seeds that succeeded (white
// none, green all) and labelled with the count. It writes "png" or "svg".
func RenderPhase(w io.Writer, r *PhaseResult, model OutlierModel, format string) error {
	c := r.Config
	s := r.successes()
	const cell = 34 // points
	nk, np := len(c.Kappas), len(c.PSs)
	left, top, gap := vg.Length(110), vg.Length(60), vg.Length(24)
	blockW, blockH := vg.Length(nk*cell), vg.Length(np*cell)
	// The blocks and a gap's margin after them, centred in a canvas wider
	// than they are.
	content := left + vg.Length(len(PhaseMethods))*(blockW+gap)
	width := max(content, 560)
	shift := (width - content) / 2
	height := top + 16 + vg.Length(len(c.Shapes))*(blockH+gap+18) + 10
	cw, err := imageCanvas(width, height, format)
	if err != nil {
		return err
	}
	dc := draw.New(cw)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	style := func(size vg.Length) text.Style {
		return text.Style{Color: color.Black, Font: sans(size), Handler: plot.DefaultTextHandler, XAlign: draw.XCenter, YAlign: draw.YCenter}
	}
	label := func(s string, x, y vg.Length, size vg.Length, align draw.XAlignment) {
		st := style(size)
		st.XAlign = align
		dc.FillText(st, vg.Point{X: x, Y: y}, s)
	}
	seeds := len(c.Seeds)
	label(model.outliers(), width/2, height-14, 13, draw.XCenter)
	label(fmt.Sprintf("seeds (of %d) reaching a relative error of %s, rank %d", seeds, sci(c.Success), c.Rank), width/2, height-32, 11, draw.XCenter)
	for si, shape := range c.Shapes {
		y0 := height - top - 16 - vg.Length(si)*(blockH+gap+18) // the top of this row
		label(fmt.Sprintf("%d × %d", shape[0], shape[1]), shift+8, y0-blockH/2, 12, draw.XLeft)
		for mi, m := range PhaseMethods {
			x0 := shift + left + vg.Length(mi)*(blockW+gap)
			if si == 0 {
				label(string(m), x0+blockW/2, y0+18, 12, draw.XCenter)
			}
			for ki, k := range c.Kappas {
				for pi, p := range c.PSs {
					n := s[m][phaseCell{model, shape[0], shape[1], k, p}]
					f := float64(n) / float64(seeds)
					fill := color.RGBA{R: uint8(255 - 200*f), G: uint8(255 - 70*f), B: uint8(255 - 200*f), A: 255}
					rect := vg.Rectangle{
						Min: vg.Point{X: x0 + vg.Length(ki*cell), Y: y0 - vg.Length((pi+1)*cell)},
						Max: vg.Point{X: x0 + vg.Length((ki+1)*cell), Y: y0 - vg.Length(pi*cell)},
					}
					dc.SetColor(fill)
					dc.Fill(rect.Path())
					dc.SetLineStyle(draw.LineStyle{Color: color.Gray{Y: 170}, Width: vg.Points(0.5)})
					dc.Stroke(rect.Path())
					label(fmt.Sprintf("%d", n), (rect.Min.X+rect.Max.X)/2, (rect.Min.Y+rect.Max.Y)/2, 10, draw.XCenter)
					if mi == 0 && ki == 0 {
						label(fmt.Sprintf("p_s %g", p), x0-4, (rect.Min.Y+rect.Max.Y)/2, 9, draw.XRight)
					}
					if pi == np-1 {
						label(fmt.Sprintf("κ %g", k), (rect.Min.X+rect.Max.X)/2, rect.Min.Y-9, 9, draw.XCenter)
					}
				}
			}
		}
	}
	_, err = cw.WriteTo(w)
	return err
}
