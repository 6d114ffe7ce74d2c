package experiment

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The style of the panels: font, axis ticks, and the markers gonum/plot
// does not have.

// sans is the Liberation Sans font at a size in points.
func sans(size vg.Length) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
}

// linearTicks labels a linear axis every 1, 2 or 5 times a power of ten,
// with 4 to 10 labels.
type linearTicks struct{}

// Ticks returns the ticks of a linear axis from min to max.
func (linearTicks) Ticks(min, max float64) []plot.Tick {
	span := max - min
	if !(span > 0) {
		return []plot.Tick{{Value: min, Label: num(min)}}
	}
	step := math.Pow(10, math.Floor(math.Log10(span)))
	for _, f := range []float64{0.1, 0.2, 0.5, 1} {
		if span/(step*f) <= 10 {
			step *= f
			break
		}
	}
	var ts []plot.Tick
	for v := math.Ceil(min/step) * step; v <= max+step*1e-9; v += step {
		ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
	}
	return ts
}

// powersOfTen labels every decade of a log axis, or every other one when
// there are many, with 1e-06-style labels.
type powersOfTen struct{}

// Ticks returns the ticks of a log axis from min to max.
func (powersOfTen) Ticks(min, max float64) []plot.Tick {
	if !(min > 0 && max >= min) || math.IsInf(max, 1) {
		return nil
	}
	lo, hi := int(math.Floor(math.Log10(min))), int(math.Ceil(math.Log10(max)))
	stride := 1
	if hi-lo > 8 {
		stride = 2
	}
	var ts []plot.Tick
	for e := lo; e <= hi; e++ {
		v := math.Pow(10, float64(e))
		if v < min*(1-1e-9) || v > max*(1+1e-9) {
			continue
		}
		t := plot.Tick{Value: v}
		if e%stride == 0 {
			t.Label = fmt.Sprintf("1e%d", e)
		}
		ts = append(ts, t)
	}
	return ts
}

// starGlyph is the outline of a five-pointed star (MATLAB's 'p').
type starGlyph struct{}

// DrawGlyph draws the star.
func (starGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	xy := make([]float64, 0, 20)
	for k := range 10 {
		r := 1.2
		if k%2 == 1 {
			r *= 0.42
		}
		a := math.Pi/2 + float64(k)*math.Pi/5
		xy = append(xy, r*math.Cos(a), r*math.Sin(a))
	}
	polygon(c, sty, pt, xy)
}

// diamondGlyph is the outline of a diamond (MATLAB's 'd').
type diamondGlyph struct{}

// DrawGlyph draws the diamond.
func (diamondGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	polygon(c, sty, pt, []float64{0, 1.2, 0.8, 0, 0, -1.2, -0.8, 0})
}

// polygon strokes the closed polygon through the points xy (pairs, in
// units of the glyph's radius) around pt.
func polygon(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point, xy []float64) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(0.8)})
	var p vg.Path
	for k := 0; k+1 < len(xy); k += 2 {
		q := vg.Point{X: pt.X + sty.Radius*vg.Length(xy[k]), Y: pt.Y + sty.Radius*vg.Length(xy[k+1])}
		if k == 0 {
			p.Move(q)
		} else {
			p.Line(q)
		}
	}
	p.Close()
	c.Stroke(p)
}
