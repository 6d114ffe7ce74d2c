package experiment

import (
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/synth"
)

// table1Colors gives each method its color, as in the paper's figures
// (purple for ScaledSM, orange for VanillaSM).
var table1Colors = map[scaledsm.Method]color.Color{
	scaledsm.ScaledSM:  color.RGBA{R: 128, B: 128, A: 255},
	scaledsm.VanillaSM: color.RGBA{R: 255, G: 128, A: 255},
	scaledsm.ScaledGD:  color.RGBA{G: 128, B: 255, A: 255},
	scaledsm.GD:        color.RGBA{G: 150, A: 255},
}

// WritePlot draws the iterations against κ on log-log axes, one panel
// without and one with outliers, a line for each method and problem (solid
// for sensing, dashed for quadratic sampling), and writes it as "png" or
// "svg". Runs that do not converge are left out of their line.
func (r *Table1Result) WritePlot(w io.Writer, format string) error {
	const width, height = 26 * vg.Centimeter, 11 * vg.Centimeter
	var canvas interface {
		vg.CanvasSizer
		io.WriterTo
	}
	switch format {
	case "png":
		canvas = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(150), vgimg.UseBackgroundColor(color.White))}
	case "svg":
		canvas = vgsvg.New(width, height)
	default:
		return fmt.Errorf("table1: unknown plot format %q (want png or svg)", format)
	}
	var panels [][]*plot.Plot
	row := []*plot.Plot{}
	for _, corrupted := range []bool{false, true} {
		p, err := r.panel(corrupted)
		if err != nil {
			return err
		}
		row = append(row, p)
	}
	panels = append(panels, row)
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Centimeter, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2,
		PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	dc := draw.New(canvas)
	canvases := plot.Align(panels, tiles, dc)
	for i, p := range panels[0] {
		p.Draw(canvases[0][i])
	}
	_, err := canvas.WriteTo(w)
	return err
}

// panel draws one panel of the plot.
func (r *Table1Result) panel(corrupted bool) (*plot.Plot, error) {
	p := plot.New()
	if corrupted {
		p.Title.Text = fmt.Sprintf("(b) with %g%% outliers", 100*r.Config.PS)
	} else {
		p.Title.Text = "(a) without outliers"
	}
	p.X.Label.Text = "condition number κ"
	p.Y.Label.Text = fmt.Sprintf("iterations to relative error %g", r.Config.Tol)
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Add(plotter.NewGrid())
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, m := range Table1Methods {
		for _, kind := range []synth.Kind{synth.Sensing, synth.Quadratic} {
			var xys plotter.XYs
			for _, cell := range r.Cells {
				if cell.Method != m || cell.Problem != kind || (cell.PS > 0) != corrupted {
					continue
				}
				for _, run := range cell.Runs {
					if run.Converged && run.Iterations > 0 {
						xys = append(xys, plotter.XY{X: run.Kappa, Y: float64(run.Iterations)})
						lo, hi = min(lo, float64(run.Iterations)), max(hi, float64(run.Iterations))
					}
				}
			}
			if len(xys) == 0 {
				continue
			}
			line, points, err := plotter.NewLinePoints(xys)
			if err != nil {
				return nil, err
			}
			line.Color, points.Color = table1Colors[m], table1Colors[m]
			line.Width = vg.Points(1.5)
			points.Shape = draw.CircleGlyph{}
			name := "sensing"
			if kind == synth.Quadratic {
				line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
				points.Shape = draw.BoxGlyph{}
				name = "quadratic sampling"
			}
			p.Add(line, points)
			p.Legend.Add(m.Name()+", "+name, line, points)
		}
	}
	p.X.Min, p.X.Max = r.Config.Kappas[0]/1.3, r.Config.Kappas[len(r.Config.Kappas)-1]*1.3
	if lo <= hi {
		// Room above the lines for the legend.
		p.Y.Min, p.Y.Max = lo/1.5, hi*8
	} else {
		p.Y.Min, p.Y.Max = 1, 10
	}
	return p, nil
}
