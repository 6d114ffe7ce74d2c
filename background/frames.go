package background

import (
	"bufio"
	"cmp"
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

	"github.com/scaledsm/scaledsm/dataio"
)

// A Source gives a video's frames one at a time, gray or in colour.
type Source interface {
	// Size returns the frames' width and height.
	Size() (width, height int)
	// Channels returns a pixel's values: 1 (gray) or 3 (R, G, B).
	Channels() int
	// Next returns the next frame (width × height × Channels values 0 to
	// 255, row by row, a pixel's channels together, valid until the next
	// call) and its number: from its file
	// name's digits (CDnet's in000470.jpg is 470), else its position from
	// 1. It returns io.EOF after the last frame, and an *InputError for a
	// frame it cannot read.
	Next() (frame []uint8, number int, err error)
}

// Counted is a Source that knows its number of frames before reading them
// (a folder, a .npy), for progress; a stream does not.
type Counted interface {
	Source
	Frames() int
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

// rgbOf sets dst to the R, G and B values of m, a pixel's together.
func rgbOf(m image.Image, dst []uint8) {
	bd := m.Bounds()
	w := bd.Dx()
	if im, ok := m.(*image.YCbCr); ok { // a JPEG's planes, without At's interface a pixel
		for y := range bd.Dy() {
			for x := range w {
				yi, ci := im.YOffset(bd.Min.X+x, bd.Min.Y+y), im.COffset(bd.Min.X+x, bd.Min.Y+y)
				p := 3 * (y*w + x)
				dst[p], dst[p+1], dst[p+2] = color.YCbCrToRGB(im.Y[yi], im.Cb[ci], im.Cr[ci])
			}
		}
		return
	}
	for y := range bd.Dy() {
		for x := range w {
			r, g, b, _ := m.At(bd.Min.X+x, bd.Min.Y+y).RGBA()
			p := 3 * (y*w + x)
			dst[p], dst[p+1], dst[p+2] = uint8(r>>8), uint8(g>>8), uint8(b>>8)
		}
	}
}

// folder is a Source of the image files of a directory, in the order of
// their numbers, or of their names.
type folder struct {
	dir    string
	names  []string
	next   int
	w, h   int
	ch     int
	buf    []uint8
	digits bool // every name has digits, which number the frames
}

// OpenFolder returns the frames of the PNG and JPEG files of dir, in gray,
// or in colour (R, G, B) when color. Where every name has digits, their
// last run numbers the frame (in000001.jpg is frame 1, f10.png frame 10),
// and the frames come in the order of their numbers (f2 before f10), two
// of one number an *InputError, as a folder where some names have digits
// and others none; otherwise in the order of their names, numbered from 1.
func OpenFolder(dir string, color bool) (Source, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, &InputError{"in", dir, "cannot read: " + unwrap(err).Error()}
	}
	f := &folder{dir: dir, ch: channels(color)}
	var numbered, plain []string
	for _, e := range ents {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if e.Type().IsRegular() && (ext == ".png" || ext == ".jpg" || ext == ".jpeg") {
			f.names = append(f.names, e.Name())
			if _, ok := numberOf(e.Name()); ok {
				numbered = append(numbered, e.Name())
			} else {
				plain = append(plain, e.Name())
			}
		}
	}
	slices.Sort(f.names)
	if len(f.names) == 0 {
		return nil, &InputError{"in", dir, "holds no PNG or JPEG frame"}
	}
	if len(numbered) > 0 && len(plain) > 0 {
		// Numbered by position, every frame after the first unnumbered
		// one would take a mask of another's number.
		slices.Sort(plain)
		return nil, &InputError{"in", dir, fmt.Sprintf("%d frames are numbered (as %s) and %d are not (as %s): give a folder of one kind", len(numbered), numbered[0], len(plain), plain[0])}
	}
	f.digits = len(numbered) > 0
	if f.digits {
		num := func(name string) int { n, _ := numberOf(name); return n }
		slices.SortStableFunc(f.names, func(a, b string) int { return cmp.Compare(num(a), num(b)) })
		for k := 1; k < len(f.names); k++ {
			if a, b := f.names[k-1], f.names[k]; num(a) == num(b) {
				return nil, &InputError{"in", dir, fmt.Sprintf("%s and %s are both frame %d: one's mask would replace the other's", a, b, num(a))}
			}
		}
	}
	cfg, err := decodeConfig(filepath.Join(dir, f.names[0]))
	if err != nil {
		return nil, err
	}
	f.w, f.h = cfg.Width, cfg.Height
	if err := checkSize(filepath.Join(dir, f.names[0]), f.w, f.h); err != nil {
		return nil, err
	}
	f.buf = make([]uint8, f.w*f.h*f.ch)
	return f, nil
}

// channels returns 3 for colour, 1 for gray.
func channels(color bool) int { return channels3(color) }

// checkSize returns an *InputError naming in when width × height is not a
// frame New takes, before a buffer of that size is made.
func checkSize(in string, width, height int) error {
	if width < 1 || height < 1 || width > 1<<15 || height > 1<<15 {
		return &InputError{in, fmt.Sprintf("%dx%d", width, height), "frames of that size: want positive dimensions of at most 32768"}
	}
	return nil
}

// numberOf returns the number that a file name's last run of ASCII digits
// spells; false for a name without one, or whose number passes 10^9.
func numberOf(name string) (int, bool) {
	name = strings.TrimSuffix(name, filepath.Ext(name))
	isDigit := func(r rune) bool { return '0' <= r && r <= '9' }
	end := strings.LastIndexFunc(name, isDigit)
	if end < 0 {
		return 0, false
	}
	start := end
	for start > 0 && isDigit(rune(name[start-1])) {
		start--
	}
	n, err := strconv.Atoi(name[start : end+1])
	return n, err == nil && n <= 1e9
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
func (f *folder) Frames() int      { return len(f.names) }
func (f *folder) Channels() int    { return f.ch }

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
	if f.ch == 3 {
		rgbOf(m, f.buf)
	} else {
		grayOf(m, f.buf)
	}
	number := f.next
	if f.digits {
		number, _ = numberOf(name)
	}
	return f.buf, number, nil
}

// raw is a Source of raw 8-bit frames from a reader (what ffmpeg -f
// rawvideo -pix_fmt gray, or rgb24, writes).
type raw struct {
	r    io.Reader
	w, h int
	ch   int
	buf  []uint8
	next int
}

// OpenRaw returns the frames of width × height bytes each that r gives,
// or of width × height × 3 (R, G, B) when color.
func OpenRaw(r io.Reader, width, height int, color bool) (Source, error) {
	if err := checkSize("size", width, height); err != nil {
		return nil, err
	}
	ch := channels(color)
	return &raw{r: bufio.NewReaderSize(r, 1<<20), w: width, h: height, ch: ch, buf: make([]uint8, width*height*ch)}, nil
}

func (s *raw) Size() (int, int) { return s.w, s.h }
func (s *raw) Channels() int    { return s.ch }

func (s *raw) Next() ([]uint8, int, error) {
	n, err := io.ReadFull(s.r, s.buf)
	switch {
	case err == io.EOF:
		return nil, 0, io.EOF
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil, 0, &InputError{"in", "-", fmt.Sprintf("ends inside frame %d: %d of its %d bytes (%dx%d, %d a pixel)", s.next+1, n, len(s.buf), s.w, s.h, s.ch)}
	case err != nil:
		return nil, 0, &InputError{"in", "-", err.Error()}
	}
	s.next++
	return s.buf, s.next, nil
}

// npyFrames is a Source of a .npy file of frames × height × width (×
// 3).
type npyFrames struct {
	f      *os.File
	r      *bufio.Reader
	h      dataio.Header
	w, ht  int
	in, ch int // channels in the file, and given
	frames int
	next   int
	raw    []uint8 // a frame as the file holds it
	buf    []uint8
	floats []float64
	path   string
	unit   float64 // 255 for floats in [0, 1], 1 for floats in [0, 255]
}

// OpenNpy returns the frames of a NumPy file of shape (frames, height,
// width), or (frames, height, width, 3) in R, G, B: uint8, or float32 or
// float64 in [0, 1] (or [0, 255] when a value of the first frame passes
// 1), C order. Colour frames are given in gray unless color; gray frames
// cannot be given in colour.
func OpenNpy(path string, color bool) (Source, error) {
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
	in := 1
	if len(h.Shape) == 4 && h.Shape[3] == 3 {
		in = 3
	}
	if (len(h.Shape) != 3 && in == 1) || h.Fortran || h.Shape[0] < 1 || h.Shape[1] < 1 || h.Shape[2] < 1 {
		fh.Close()
		return nil, &InputError{"in", path, fmt.Sprintf("shape %s (Fortran order %v): want frames × height × width (× 3), C order", dataio.ShapeString(h.Shape), h.Fortran)}
	}
	if color && in == 1 {
		fh.Close()
		return nil, &InputError{"in", path, fmt.Sprintf("shape %s: gray frames, no colour to take", dataio.ShapeString(h.Shape))}
	}
	if err := checkSize("in", h.Shape[2], h.Shape[1]); err != nil {
		fh.Close()
		return nil, &InputError{"in", path, fmt.Sprintf("frames of %dx%d: want positive dimensions of at most 32768", h.Shape[2], h.Shape[1])}
	}
	s := &npyFrames{f: fh, r: r, h: h, frames: h.Shape[0], ht: h.Shape[1], w: h.Shape[2], in: in, ch: channels(color), path: path}
	s.raw, s.buf = make([]uint8, s.w*s.ht*in), make([]uint8, s.w*s.ht*s.ch)
	switch h.Dtype {
	case "|u1", "<u1":
	case "<f4", "<f8", ">f4", ">f8":
		s.floats = make([]float64, s.w*s.ht*in)
	default:
		fh.Close()
		return nil, &InputError{"in", path, fmt.Sprintf("dtype %s: want uint8, float32 or float64", h.Dtype)}
	}
	return s, nil
}

func (s *npyFrames) Size() (int, int) { return s.w, s.ht }
func (s *npyFrames) Frames() int      { return s.frames }
func (s *npyFrames) Channels() int    { return s.ch }

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
		if _, err := io.ReadFull(s.r, s.raw); err != nil {
			return fail(err)
		}
	} else {
		// ReadData reads an array to its end: give it this frame's bytes.
		size := 8
		if strings.HasSuffix(s.h.Dtype, "f4") {
			size = 4
		}
		one := dataio.Header{Dtype: s.h.Dtype, Shape: []int{len(s.floats)}}
		if err := dataio.ReadData(io.LimitReader(s.r, int64(size*len(s.floats))), one, s.floats); err != nil {
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
			if math.IsNaN(v) || math.IsInf(v, 0) {
				s.f.Close()
				return nil, 0, &InputError{"in", s.path, fmt.Sprintf("frame %d: value %d is %v, not a gray level", s.next, p, v)}
			}
			s.raw[p] = uint8(min(255, max(0, math.Round(v*s.unit))))
		}
	}
	if s.in == s.ch {
		copy(s.buf, s.raw)
	} else { // colour in the file, gray wanted: the luma
		for p := range s.buf {
			r, g, b := uint32(s.raw[3*p]), uint32(s.raw[3*p+1]), uint32(s.raw[3*p+2])
			s.buf[p] = uint8((19595*r + 38470*g + 7471*b + 1<<15) >> 16)
		}
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
