package background

import (
	"bufio"
	"errors"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // frames in JPEG
	_ "image/png"  // and in PNG
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/scaledsm/scaledsm/dataio"
)

// A Source gives a video's gray frames one at a time.
type Source interface {
	// Size returns the frames' width and height.
	Size() (width, height int)
	// Next returns the next frame (width × height values 0 to 255, row
	// by row, valid until the next call) and its number: from its file
	// name's digits (CDnet's in000470.jpg is 470), else its position from
	// 1. It returns io.EOF after the last frame, and an *InputError for a
	// frame it cannot read.
	Next() (frame []uint8, number int, err error)
}

// Gray returns the luma of a color, 0.299 R + 0.587 G + 0.114 B (the
// weights of JPEG's Y and of OpenCV's gray), rounded.
func gray(c color.Color) uint8 {
	r, g, b, _ := c.RGBA()
	return uint8((19595*r + 38470*g + 7471*b + 1<<15) >> 24)
}

// grayOf sets dst to the gray values of m (its Y plane for a JPEG's
// YCbCr, which is the luma).
func grayOf(m image.Image, dst []uint8) {
	bd := m.Bounds()
	w := bd.Dx()
	switch im := m.(type) {
	case *image.YCbCr:
		for y := range bd.Dy() {
			copy(dst[y*w:(y+1)*w], im.Y[(y+bd.Min.Y-im.Rect.Min.Y)*im.YStride+bd.Min.X-im.Rect.Min.X:])
		}
	case *image.Gray:
		for y := range bd.Dy() {
			copy(dst[y*w:(y+1)*w], im.Pix[y*im.Stride:])
		}
	case *image.RGBA:
		for y := range bd.Dy() {
			row := im.Pix[y*im.Stride:]
			for x := range w {
				r, g, b := uint32(row[4*x]), uint32(row[4*x+1]), uint32(row[4*x+2])
				dst[y*w+x] = uint8((19595*r + 38470*g + 7471*b + 1<<15) >> 16)
			}
		}
	default:
		for y := range bd.Dy() {
			for x := range w {
				dst[y*w+x] = gray(m.At(bd.Min.X+x, bd.Min.Y+y))
			}
		}
	}
}

// folder is a Source of the image files of a directory, in name order.
type folder struct {
	dir    string
	names  []string
	next   int
	w, h   int
	buf    []uint8
	digits bool // every name has digits, which number the frames
}

// OpenFolder returns the frames of the PNG and JPEG files of dir, in the
// order of their names.
func OpenFolder(dir string) (Source, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, &InputError{"in", dir, "cannot read: " + unwrap(err).Error()}
	}
	f := &folder{dir: dir, digits: true}
	for _, e := range ents {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if e.Type().IsRegular() && (ext == ".png" || ext == ".jpg" || ext == ".jpeg") {
			f.names = append(f.names, e.Name())
			if _, ok := numberOf(e.Name()); !ok {
				f.digits = false
			}
		}
	}
	slices.Sort(f.names)
	if len(f.names) == 0 {
		return nil, &InputError{"in", dir, "holds no PNG or JPEG frame"}
	}
	cfg, err := decodeConfig(filepath.Join(dir, f.names[0]))
	if err != nil {
		return nil, err
	}
	f.w, f.h = cfg.Width, cfg.Height
	f.buf = make([]uint8, f.w*f.h)
	return f, nil
}

// numberOf returns the number that a file name's last run of digits
// spells.
func numberOf(name string) (int, bool) {
	name = strings.TrimSuffix(name, filepath.Ext(name))
	end := strings.LastIndexFunc(name, unicode.IsDigit)
	if end < 0 {
		return 0, false
	}
	start := end
	for start > 0 && unicode.IsDigit(rune(name[start-1])) {
		start--
	}
	n, err := strconv.Atoi(name[start : end+1])
	return n, err == nil
}

func decodeConfig(path string) (image.Config, error) {
	fh, err := os.Open(path)
	if err != nil {
		return image.Config{}, &InputError{"frame", path, "cannot read: " + unwrap(err).Error()}
	}
	defer fh.Close()
	cfg, _, err := image.DecodeConfig(bufio.NewReader(fh))
	if err != nil {
		return cfg, &InputError{"frame", path, "not a PNG or JPEG image: " + err.Error()}
	}
	return cfg, nil
}

func (f *folder) Size() (int, int) { return f.w, f.h }

func (f *folder) Next() ([]uint8, int, error) {
	if f.next >= len(f.names) {
		return nil, 0, io.EOF
	}
	name := f.names[f.next]
	f.next++
	path := filepath.Join(f.dir, name)
	fh, err := os.Open(path)
	if err != nil {
		return nil, 0, &InputError{"frame", path, "cannot read: " + unwrap(err).Error()}
	}
	defer fh.Close()
	m, _, err := image.Decode(bufio.NewReader(fh))
	if err != nil {
		return nil, 0, &InputError{"frame", path, "cannot decode: " + err.Error()}
	}
	if b := m.Bounds(); b.Dx() != f.w || b.Dy() != f.h {
		return nil, 0, &InputError{"frame", path, fmt.Sprintf("is %dx%d, the first frame %dx%d", b.Dx(), b.Dy(), f.w, f.h)}
	}
	grayOf(m, f.buf)
	number := f.next
	if f.digits {
		number, _ = numberOf(name)
	}
	return f.buf, number, nil
}

// raw is a Source of raw 8-bit gray frames from a reader (what ffmpeg
// -f rawvideo -pix_fmt gray writes).
type raw struct {
	r    io.Reader
	w, h int
	buf  []uint8
	next int
}

// OpenRaw returns the frames of width × height bytes each that r gives.
func OpenRaw(r io.Reader, width, height int) Source {
	return &raw{r: bufio.NewReaderSize(r, 1<<20), w: width, h: height, buf: make([]uint8, width*height)}
}

func (s *raw) Size() (int, int) { return s.w, s.h }

func (s *raw) Next() ([]uint8, int, error) {
	n, err := io.ReadFull(s.r, s.buf)
	switch {
	case err == io.EOF:
		return nil, 0, io.EOF
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil, 0, &InputError{"in", "-", fmt.Sprintf("ends inside frame %d: %d of its %d bytes (%dx%d)", s.next+1, n, len(s.buf), s.w, s.h)}
	case err != nil:
		return nil, 0, &InputError{"in", "-", err.Error()}
	}
	s.next++
	return s.buf, s.next, nil
}

// npyFrames is a Source of a .npy file of frames × height × width.
type npyFrames struct {
	f      *os.File
	r      *bufio.Reader
	h      dataio.Header
	w, ht  int
	frames int
	next   int
	buf    []uint8
	floats []float64
	path   string
	unit   float64 // 255 for floats in [0, 1], 1 for floats in [0, 255]
}

// OpenNpy returns the frames of a NumPy file of shape (frames, height,
// width): uint8, or float32 or float64 in [0, 1] (or [0, 255] when a
// value of the first frame passes 1), C order.
func OpenNpy(path string) (Source, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, &InputError{"in", path, "cannot read: " + unwrap(err).Error()}
	}
	r := bufio.NewReaderSize(fh, 1<<20)
	h, err := dataio.ReadHeader(r)
	if err != nil {
		fh.Close()
		return nil, &InputError{"in", path, err.Error()}
	}
	if len(h.Shape) != 3 || h.Fortran || h.Shape[0] < 1 || h.Shape[1] < 1 || h.Shape[2] < 1 {
		fh.Close()
		return nil, &InputError{"in", path, fmt.Sprintf("shape %s (Fortran order %v): want frames × height × width, C order", dataio.ShapeString(h.Shape), h.Fortran)}
	}
	s := &npyFrames{f: fh, r: r, h: h, frames: h.Shape[0], ht: h.Shape[1], w: h.Shape[2], path: path}
	s.buf = make([]uint8, s.w*s.ht)
	switch h.Dtype {
	case "|u1", "<u1":
	case "<f4", "<f8", ">f4", ">f8":
		s.floats = make([]float64, s.w*s.ht)
	default:
		fh.Close()
		return nil, &InputError{"in", path, fmt.Sprintf("dtype %s: want uint8, float32 or float64", h.Dtype)}
	}
	return s, nil
}

func (s *npyFrames) Size() (int, int) { return s.w, s.ht }

func (s *npyFrames) Next() ([]uint8, int, error) {
	if s.next >= s.frames {
		s.f.Close()
		return nil, 0, io.EOF
	}
	s.next++
	fail := func(err error) ([]uint8, int, error) {
		s.f.Close()
		return nil, 0, &InputError{"in", s.path, fmt.Sprintf("frame %d: %v (truncated?)", s.next, err)}
	}
	if s.floats == nil {
		if _, err := io.ReadFull(s.r, s.buf); err != nil {
			return fail(err)
		}
		return s.buf, s.next, nil
	}
	one := dataio.Header{Dtype: s.h.Dtype, Shape: []int{s.ht, s.w}}
	if err := dataio.ReadData(s.r, one, s.floats); err != nil {
		return fail(err)
	}
	if s.unit == 0 {
		s.unit = 255
		for _, v := range s.floats {
			if v > 1 {
				s.unit = 1
				break
			}
		}
	}
	for p, v := range s.floats {
		if math.IsNaN(v) {
			return fail(fmt.Errorf("pixel %d is NaN", p))
		}
		s.buf[p] = uint8(min(255, max(0, math.Round(v*s.unit))))
	}
	return s.buf, s.next, nil
}

func unwrap(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
