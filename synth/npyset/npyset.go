// Package npyset writes a synthetic problem (package synth) as a set of
// NumPy .npy files with a problem.json that names them and says how to
// solve them, as the command line's generate does: the operator, the
// observations and the truth for matrix sensing and quadratic sampling,
// COO triplets and the truth's factors for matrix completion and robust
// PCA.
package npyset

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/completion"
	"github.com/scaledsm/scaledsm/dataio"
	"github.com/scaledsm/scaledsm/report"
	"github.com/scaledsm/scaledsm/synth"
)

// Meta is problem.json, written beside the arrays: the problem's shape
// and draw, how A.npy is stored, f(X*), the files and the command that
// solves them.
type Meta struct {
	report.Shape
	report.Draw
	Dtype string   `json:"dtype"`
	Order string   `json:"order"`
	FStar float64  `json:"f_star"`
	Files []string `json:"files"`
	Solve string   `json:"solve"`
}

// Names are the names of every file a set may hold, a synthetic
// ratings file's too: a directory that holds another set loses those the
// new one does not have.
var Names = []string{"A.npy", "y.npy", "X_star.npy", "L_star.npy", "R_star.npy", "outliers.npy",
	"rows.npy", "cols.npy", "values.npy", "train.csv", "test.csv", "problem.json"}

// File is a file of generate: its name, a description of its shape and
// how to write it.
type File struct {
	Name, Desc string
	Write      func(io.Writer) error
}

// Operator draws a problem of the Gaussian models and returns its
// files (the operator in the given dtype and order) and problem.json.
func Operator(cfg synth.Config, setting synth.Setting, out, dtype, order string) ([]File, Meta, error) {
	draw, err := synth.New(cfg)
	if err != nil {
		return nil, Meta{}, err
	}
	var writeA func(io.Writer, dataio.Header) error
	if s, ok := draw.Op.(*scaledsm.Sensing); ok && s.Data32() != nil {
		writeA = func(w io.Writer, h dataio.Header) error { return dataio.WriteArray(w, h, s.Data32()) }
	} else {
		a := draw.Op.(interface{ Data() []float64 }).Data()
		writeA = func(w io.Writer, h dataio.Header) error { return dataio.WriteArray(w, h, a) }
	}
	in, err := draw.Instance(setting)
	if err != nil {
		return nil, Meta{}, err
	}

	m, n1, n2, r := cfg.M, cfg.N1, cfg.N2, cfg.Rank
	shape := []int{m, n1, n2}
	if cfg.Kind == synth.Quadratic {
		shape = []int{m, n1}
	}
	hA := dataio.Header{Dtype: "<f8", Fortran: order == "F", Shape: shape}
	if dtype == "float32" {
		hA.Dtype = "<f4"
	}
	mask := in.Corrupted()
	files := []File{
		{"A.npy", fmt.Sprintf("%s %s, %s order", dataio.ShapeString(shape), dtype, order), func(w io.Writer) error { return writeA(w, hA) }},
		{"y.npy", fmt.Sprintf("(%d,)", m), func(w io.Writer) error { return dataio.WriteFloat64(w, []int{m}, in.Y) }},
		{"X_star.npy", fmt.Sprintf("(%d, %d)", n1, n2), func(w io.Writer) error { return dataio.WriteDense(w, in.Truth) }},
		{"L_star.npy", fmt.Sprintf("(%d, %d)", n1, r), func(w io.Writer) error { return dataio.WriteDense(w, in.Star.L) }},
	}
	if in.Star.R != nil {
		files = append(files, File{"R_star.npy", fmt.Sprintf("(%d, %d)", n2, r), func(w io.Writer) error { return dataio.WriteDense(w, in.Star.R) }})
	}
	files = append(files, File{"outliers.npy", fmt.Sprintf("(%d,) bool", m), func(w io.Writer) error { return dataio.WriteBool(w, []int{m}, mask) }})

	opFlag := "--sensing"
	if cfg.Kind == synth.Quadratic {
		opFlag = "--quadratic"
	}
	solve := fmt.Sprintf("scaledsm solve %s %s --y %s --rank %d --truth %s", opFlag,
		filepath.Join(out, "A.npy"), filepath.Join(out, "y.npy"), r, filepath.Join(out, "X_star.npy"))
	if setting.PS > 0 {
		solve += fmt.Sprintf(" --ps %g", setting.PS)
	}
	solve += " --out " + filepath.Join(out, "result")
	meta := Meta{
		Shape: report.Shape{Problem: cfg.Kind.String(), N1: n1, N2: n2, Rank: r, M: m},
		Draw:  report.NewDraw(cfg, setting, in),
		Dtype: dtype, Order: order, FStar: in.FStar, Solve: solve,
	}
	return files, meta, nil
}

// Entries draws a problem of the entry models and returns its files,
// the observed entries as COO triplets and the truth's factors, and
// problem.json.
func Entries(cfg synth.Config, setting synth.Setting, out string) ([]File, Meta, error) {
	draw, err := synth.New(cfg)
	if err != nil {
		return nil, Meta{}, err
	}
	in, err := draw.Instance(setting)
	if err != nil {
		return nil, Meta{}, err
	}
	cfg = draw.Config
	op := draw.Op.(*completion.Entries)
	m, n1, n2 := op.Dims()
	r := cfg.Rank
	if err := op.Determined(r); err != nil {
		return nil, Meta{}, err
	}
	start := op.Start()
	rows := make([]int32, m)
	for i := range n1 {
		for k := start[i]; k < start[i+1]; k++ {
			rows[k] = int32(i)
		}
	}
	vec := fmt.Sprintf("(%d,)", m)
	files := []File{
		{"rows.npy", vec + " int32", func(w io.Writer) error { return dataio.WriteInt32(w, []int{m}, rows) }},
		{"cols.npy", vec + " int32", func(w io.Writer) error { return dataio.WriteInt32(w, []int{m}, op.Cols()) }},
		values(in, m),
		{"L_star.npy", fmt.Sprintf("(%d, %d)", n1, r), func(w io.Writer) error { return dataio.WriteDense(w, in.Star.L) }},
		{"R_star.npy", fmt.Sprintf("(%d, %d)", n2, r), func(w io.Writer) error { return dataio.WriteDense(w, in.Star.R) }},
	}
	j := func(name string) string { return filepath.Join(out, name) }
	solve := fmt.Sprintf("scaledsm solve --rows %s --cols %s --values %s --shape %dx%d --rank %d --truth-left %s --truth-right %s",
		j("rows.npy"), j("cols.npy"), j("values.npy"), n1, n2, r, j("L_star.npy"), j("R_star.npy"))
	if setting.PS > 0 {
		solve += fmt.Sprintf(" --ps %g", setting.PS)
	}
	solve += " --out " + j("result")
	meta := Meta{
		Shape: report.Shape{Problem: cfg.Kind.String(), N1: n1, N2: n2, Rank: r, M: m},
		Draw:  report.NewDraw(cfg, setting, in),
		Dtype: map[bool]string{false: "float64", true: "float32"}[in.Y32 != nil], Order: "C", FStar: in.FStar, Solve: solve,
	}
	return files, meta, nil
}

// WithMeta returns the files with problem.json, which lists them, last.
func WithMeta(files []File, meta *Meta) []File {
	for _, f := range files {
		meta.Files = append(meta.Files, f.Name)
	}
	meta.Files = append(meta.Files, "problem.json")
	return append(files, File{"problem.json", "", func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(meta)
	}})
}

// values is the file of an entry model's observations: float64, or float32
// when the draw holds them so (Config.Precision Float32).
func values(in *synth.Instance, m int) File {
	if in.Y32 != nil {
		return File{"values.npy", fmt.Sprintf("(%d,) float32", m), func(w io.Writer) error {
			return dataio.WriteArray(w, dataio.Header{Dtype: "<f4", Shape: []int{m}}, in.Y32)
		}}
	}
	return File{"values.npy", fmt.Sprintf("(%d,) float64", m), func(w io.Writer) error { return dataio.WriteFloat64(w, []int{m}, in.Y) }}
}
