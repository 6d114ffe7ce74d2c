package experiment

import (
	"io"
	"path/filepath"

	"github.com/scaledsm/scaledsm/internal/atomicio"
)

// WriteFigure writes a figure's files into dir, each atomically: its CSV,
// its panels (WritePanels), and last its record (a directory with
// figureN.json has all of figure N's files). It returns the names written;
// a file that could not be written is an *atomicio.FileError.
func WriteFigure(dir string, res *Result) ([]string, error) {
	n := res.Figure.Number
	names, err := writeFiles(dir, nil, CSVName(n), func(w io.Writer) error { return WriteCSV(w, res) })
	if err != nil {
		return names, err
	}
	panels, err := WritePanels(dir, res)
	if names = append(names, panels...); err != nil {
		return names, err
	}
	return writeFiles(dir, names, MetaName(n), func(w io.Writer) error { return WriteMeta(w, res) })
}

// WritePanels writes each panel of a figure into dir as PNG and SVG,
// atomically, and returns the names written.
func WritePanels(dir string, res *Result) ([]string, error) {
	var names []string
	var err error
	for i, p := range res.Figure.Panels {
		for _, ext := range []string{"png", "svg"} {
			render := func(w io.Writer) error { return RenderPanel(w, res, i, ext) }
			if names, err = writeFiles(dir, names, PanelName(res.Figure.Number, p.Name, ext), render); err != nil {
				return names, err
			}
		}
	}
	return names, nil
}

// WriteCompletionPanels writes each panel of the completion study into
// dir as PNG and SVG, atomically, and returns the names written.
func WriteCompletionPanels(dir string, c *CompletionResult) ([]string, error) {
	var names []string
	var err error
	for i, p := range CompletionPanels {
		for _, ext := range []string{"png", "svg"} {
			render := func(w io.Writer) error { return RenderCompletion(w, c, i, ext) }
			if names, err = writeFiles(dir, names, CompletionPanelName(p.Name, ext), render); err != nil {
				return names, err
			}
		}
	}
	return names, nil
}

// writeFiles writes the file name of dir through write, atomically, and
// returns names with it added, or a *atomicio.FileError.
func writeFiles(dir string, names []string, name string, write func(io.Writer) error) ([]string, error) {
	if err := atomicio.WriteFile(filepath.Join(dir, name), write); err != nil {
		return names, &atomicio.FileError{Name: name, Err: err}
	}
	return append(names, name), nil
}
