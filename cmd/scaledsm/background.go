package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/scaledsm/scaledsm/background"
	"github.com/scaledsm/scaledsm/internal/atomicio"
)

const backgroundSynopsis = `Separates a video's moving foreground from its background, frame by frame, and writes
one mask a frame into --out: binNNNNNN.png (0 background, 255 foreground; the number from
the frame's file name, else its position from 1: CDnet's layout) and summary.json. Colour
frames are taken in gray (--color models their channels). The background is learned from the first --learn frames (the
scaled subgradient method's robust PCA of a sample of their pixels, then each pixel by
least absolute deviations), then tracked: each frame fitted to its basis by a robust
regression, a pixel foreground where its residual is beyond --threshold of the pixel's own
scale and --min-contrast of the gray range (or beyond --max-contrast at all), the mask
made coherent by a --median majority filter and its holes filled, the basis and the scales
moved toward the background pixels by --rate. Memory does not depend on the video's
length; the first masks come out once the learning frames are in. "scaledsm video"
separates a whole video at once. docs/completion.md has the defaults measured on CDnet.

  scaledsm background --in frames/ --out masks/       PNG or JPEG frames, by the numbers in their names
  scaledsm background --in video.npy --out masks/     frames × height × width, uint8 or float
  ffmpeg -i in.mp4 -f rawvideo -pix_fmt gray - | scaledsm background --in - --size 320x240 --out masks/`

// stdin is what --in - reads (a test's stream in tests).
var stdin io.Reader = os.Stdin

// bgFlags are background's flags.
type bgFlags struct {
	in, size, out string
	json          bool
	s             background.Settings
}

// runBackground runs "scaledsm background".
func runBackground(args []string, stdout, stderr io.Writer) error {
	var f bgFlags
	fs := newFlagSet("background", backgroundSynopsis, stdout)
	f.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	src, err := f.open()
	if err != nil {
		return err
	}
	w, h := src.Size()
	sub, err := background.New(w, h, f.s)
	if err != nil {
		return bgError(err)
	}
	ctx, stop := interruptContext()
	defer stop()
	bar := newProgressBar(stderr, "background")
	begin := time.Now()
	out := newMaskWriter(f.out, w, h)
	var numbers []int
	var decoding, subtracting time.Duration
	emit := func(index int, mask []uint8) error { return out.write(numbers[index], mask) }
	for {
		t0 := time.Now()
		frame, number, err := src.Next()
		decoding += time.Since(t0)
		if err == io.EOF {
			break
		}
		if err != nil {
			return out.abandon(bgError(err))
		}
		numbers = append(numbers, number)
		t1 := time.Now()
		err = sub.Apply(ctx, frame, emit)
		subtracting += time.Since(t1)
		if err != nil {
			if ctx.Err() != nil {
				return out.abandon(exitError{errors.New("interrupted; the masks written are whole files"), exitInterrupted})
			}
			return out.abandon(bgError(err))
		}
		if len(numbers)%100 == 0 {
			if c, ok := src.(background.Counted); ok {
				bar.show("%d of %d frames, %s", len(numbers), c.Frames(), time.Since(begin).Round(time.Second))
			} else {
				bar.show("%d frames, %s", len(numbers), time.Since(begin).Round(time.Second))
			}
		}
	}
	t1 := time.Now()
	if err := sub.Flush(ctx, emit); err != nil {
		if ctx.Err() != nil {
			return out.abandon(exitError{errors.New("interrupted; the masks written are whole files"), exitInterrupted})
		}
		return out.abandon(bgError(err))
	}
	subtracting += time.Since(t1)
	bar.done()
	if err := out.close(); err != nil {
		return outputError("out", f.out, err)
	}
	if len(numbers) == 0 {
		return exitError{fmt.Errorf("--in %s: no frames", f.in), exitBadInput}
	}
	sum := bgSummary{Frames: len(numbers), Width: w, Height: h, Seconds: time.Since(begin).Seconds(),
		DecodeSeconds: decoding.Seconds(), SubtractSeconds: subtracting.Seconds(), Settings: sub.Settings(), Learned: sub.LearnInfo,
		Masks: fmt.Sprintf("bin%06d.png to bin%06d.png", numbers[0], numbers[len(numbers)-1])}
	sum.FramesPerSecond = float64(sum.Frames) / subtracting.Seconds()
	b, _ := json.MarshalIndent(sum, "", "  ")
	if err := atomicio.WriteFile(filepath.Join(f.out, "summary.json"), func(w io.Writer) error { _, err := w.Write(append(b, '\n')); return err }); err != nil {
		return outputError("out", f.out, err)
	}
	if f.json {
		_, err := stdout.Write(append(b, '\n'))
		return err
	}
	fmt.Fprintf(stdout, "wrote %d masks (%s) to %s: %dx%d, a background of rank %d learned from the first %d frames (%d ScaledSM iterations on a sample of %d pixels, then each pixel; median pixel scale %.3g of the gray range)\n",
		sum.Frames, sum.Masks, f.out, w, h, sub.LearnInfo.Rank, sub.LearnInfo.Frames, sub.LearnInfo.Iterations, sub.LearnInfo.SampleRows, sub.LearnInfo.Scale)
	fmt.Fprintf(stdout, "time       %.3g s in all: %.0f frames a second subtracting (%.3g s), %.3g s reading and decoding, the rest writing\n",
		sum.Seconds, sum.FramesPerSecond, sum.SubtractSeconds, sum.DecodeSeconds)
	return nil
}

// bgSummary is background's summary.json.
type bgSummary struct {
	Frames          int                  `json:"frames"`
	Width           int                  `json:"width"`
	Height          int                  `json:"height"`
	Masks           string               `json:"masks"`
	FramesPerSecond float64              `json:"frames_per_second"` // of the subtraction, decoding and writing aside
	Seconds         float64              `json:"seconds"`
	DecodeSeconds   float64              `json:"decode_seconds"`
	SubtractSeconds float64              `json:"subtract_seconds"`
	Settings        background.Settings  `json:"settings"`
	Learned         background.LearnInfo `json:"learned"`
}

func (f *bgFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.in, "in", "", "the frames: a folder of PNG or JPEG files (in the order of the numbers in their names,\nf2 before f10; the masks binNNNNNN.png by the same numbers), a .npy file (frames × height ×\nwidth), or - for raw 8-bit gray frames on stdin (with --size)")
	fs.StringVar(&f.size, "size", "", "with --in -: the frames' size, WxH (as 320x240)")
	fs.StringVar(&f.out, "out", "", "the directory of the masks")
	fs.BoolVar(&f.json, "json", false, "print the summary as JSON")
	fs.IntVar(&f.s.Learn, "learn", background.DefaultLearn, "the frames the background is learned from before the first mask")
	fs.IntVar(&f.s.Rank, "rank", background.DefaultRank, "the background's rank")
	fs.Float64Var(&f.s.Threshold, "threshold", background.DefaultThreshold, "a foreground pixel's residual is beyond this many of its pixel's robust scales")
	fs.Float64Var(&f.s.MinContrast, "min-contrast", background.DefaultMinContrast, "and beyond this fraction of the gray range (0 for none)")
	fs.Float64Var(&f.s.MaxContrast, "max-contrast", background.DefaultMaxContrast, "a residual beyond this fraction of the gray range is foreground whatever its pixel's scale (1 for none)")
	fs.IntVar(&f.s.Median, "median", background.DefaultMedian, "the majority filter's window (odd; 1 for none)")
	fs.Float64Var(&f.s.Rate, "rate", background.DefaultRate, "how fast the background and the pixels' scales follow the frames, in (0, 1)")
	fs.IntVar(&f.s.Absorb, "absorb", background.DefaultAbsorb, "a pixel foreground this many frames in a row is taken into the background (-1 never)")
	fs.BoolVar(&f.s.Color, "color", false, "model the frames' three colour channels (a pixel a hit when one is), not their gray; with --in -,\nraw rgb24 frames (ffmpeg -pix_fmt rgb24)")
	fs.BoolVar(&f.s.KeepHoles, "keep-holes", false, "leave the background that foreground encloses as it is (by default the holes are filled)")
}

// open checks the flags and the output, and opens the frames.
func (f *bgFlags) open() (background.Source, error) {
	if f.in == "" {
		return nil, usageError{"--in: missing: give a folder of frames, a .npy file or - for stdin"}
	}
	if f.out == "" {
		return nil, usageError{"--out: missing: give the directory of the masks"}
	}
	s, err := f.s.Given() // every flag has its value: a zero is the user's
	if err != nil {
		return nil, bgError(err)
	}
	f.s = s
	if st, err := os.Stat(f.out); err == nil && !st.IsDir() {
		return nil, badFlag("out", f.out, "is not a directory")
	}
	if filepath.Clean(f.out) == filepath.Clean(f.in) {
		return nil, badFlag("out", f.out, "is the folder of the frames (--in)")
	}
	src, err := f.frames()
	if err != nil {
		return nil, err
	}
	// The output once the frames are open: a bad --in leaves no folder.
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return nil, badFlag("out", f.out, "cannot be created: "+unwrapPath(err).Error())
	}
	if err := probe(f.out); err != nil {
		return nil, badFlag("out", f.out, "cannot write there: "+unwrapPath(err).Error())
	}
	return src, nil
}

// frames opens --in's frames.
func (f *bgFlags) frames() (background.Source, error) {
	if f.in == "-" {
		var w, h int
		if _, err := fmt.Sscanf(strings.ToLower(f.size), "%dx%d", &w, &h); err != nil || w < 1 || h < 1 {
			return nil, badFlag("size", f.size, "want WxH, as 320x240, with --in -")
		}
		src, err := background.OpenRaw(stdin, w, h, f.s.Color)
		if err != nil {
			return nil, bgError(err)
		}
		return src, nil
	}
	if f.size != "" {
		return nil, badFlag("size", f.size, "applies to --in - (raw frames on stdin)")
	}
	st, err := os.Stat(f.in)
	if err != nil {
		return nil, exitError{fmt.Errorf("--in %s: %v", f.in, unwrapPath(err)), exitBadInput}
	}
	switch ext := strings.ToLower(filepath.Ext(f.in)); {
	case !st.IsDir() && (ext == ".png" || ext == ".jpg" || ext == ".jpeg"):
		return nil, exitError{fmt.Errorf("--in %s: is one image: give the folder of the frames", f.in), exitBadInput}
	}
	var src background.Source
	if st.IsDir() {
		src, err = background.OpenFolder(f.in, f.s.Color)
	} else {
		src, err = background.OpenNpy(f.in, f.s.Color)
	}
	if err != nil {
		return nil, bgError(err)
	}
	return src, nil
}

// bgError words an error of the background package for the command line.
func bgError(err error) error {
	var ie *background.InputError
	if errors.As(err, &ie) {
		switch ie.Input {
		case "in", "frame":
			return exitError{fmt.Errorf("--in %v: %s", ie.Value, ie.Reason), exitBadInput}
		case "size":
			return exitError{fmt.Errorf("the frames' size %v: %s", ie.Value, ie.Reason), exitBadInput}
		case "frames":
			return exitError{fmt.Errorf("--in: %v frames: %s", ie.Value, ie.Reason), exitBadInput}
		}
		return badFlag(ie.Input, ie.Value, ie.Reason)
	}
	return err
}

// maskWriter writes masks as 8-bit gray PNG files (0 and 255 whatever
// reads them, as CDnet's ground truth; a 1-bit palette PNG read 0 and 1
// in PIL) on a goroutine of its own, each file whole (written to a
// temporary name and renamed, not synced: a sync a mask took half the time
// of a video on disk).
type maskWriter struct {
	dir  string
	w, h int
	jobs chan maskJob
	done sync.WaitGroup
	mu   sync.Mutex
	err  error
	free chan []uint8
	enc  png.Encoder
	// written counts the masks written, first and last their numbers.
	written, first, last int
}

type maskJob struct {
	number int
	mask   []uint8
}

func newMaskWriter(dir string, w, h int) *maskWriter {
	m := &maskWriter{dir: dir, w: w, h: h, jobs: make(chan maskJob, 64), free: make(chan []uint8, 64),
		enc: png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: &onePNGBuffer{}}}
	m.done.Add(1)
	go func() {
		defer m.done.Done()
		im := image.NewGray(image.Rect(0, 0, w, h))
		var buf bytes.Buffer
		for j := range m.jobs {
			copy(im.Pix, j.mask)
			select {
			case m.free <- j.mask:
			default:
			}
			if m.failed() {
				continue
			}
			buf.Reset()
			err := m.enc.Encode(&buf, im)
			if err == nil {
				err = atomicio.WriteFileUnsynced(filepath.Join(dir, fmt.Sprintf("bin%06d.png", j.number)), func(w io.Writer) error {
					_, err := w.Write(buf.Bytes())
					return err
				})
			}
			m.mu.Lock()
			if err != nil {
				m.err = err
			} else {
				if m.written == 0 {
					m.first = j.number
				}
				m.written, m.last = m.written+1, j.number
			}
			m.mu.Unlock()
		}
	}()
	return m
}

// onePNGBuffer keeps the PNG encoder's buffers from one mask to the next
// (the writer encodes one mask at a time).
type onePNGBuffer struct{ b *png.EncoderBuffer }

func (p *onePNGBuffer) Get() *png.EncoderBuffer  { return p.b }
func (p *onePNGBuffer) Put(b *png.EncoderBuffer) { p.b = b }

func (m *maskWriter) failed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err != nil
}

// write queues a copy of the mask of frame number.
func (m *maskWriter) write(number int, mask []uint8) error {
	if m.failed() {
		return m.err
	}
	var c []uint8
	select {
	case c = <-m.free:
	default:
		c = make([]uint8, len(mask))
	}
	copy(c, mask)
	m.jobs <- maskJob{number, c}
	return nil
}

// close waits for the masks queued and returns the first error.
func (m *maskWriter) close() error {
	close(m.jobs)
	m.done.Wait()
	return m.err
}

// abandon closes the writer after err stopped the video, and adds to err
// the masks written before it.
func (m *maskWriter) abandon(err error) error {
	if werr := m.close(); werr != nil {
		err = outputError("out", m.dir, werr) // the writer's failure, however it surfaced
	}
	if m.written == 0 {
		return err
	}
	what := fmt.Sprintf("; %d masks written to %s before it stopped (bin%06d.png to bin%06d.png), no summary.json", m.written, m.dir, m.first, m.last)
	if m.written == 1 {
		what = fmt.Sprintf("; 1 mask written to %s before it stopped (bin%06d.png), no summary.json", m.dir, m.first)
	}
	var ee exitError
	if errors.As(err, &ee) {
		return exitError{fmt.Errorf("%v%s", ee.err, what), ee.code}
	}
	return fmt.Errorf("%w%s", err, what)
}
