//go:build scaledsm_capi

// The background subtractor's part of the C API of the Python package (see
// capi.go): a background.Subtractor behind an integer handle, fed one
// frame a call. Python's frame is read during the call only.

package main

/*
#include <stdint.h>
*/
import "C"

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"unsafe"

	"github.com/scaledsm/scaledsm/background"
)

// bgState is a subtractor and the masks it has emitted that Python has
// not yet taken (those of the learning frames come out at once). mu
// serializes the calls on one subtractor: ctypes releases the GIL.
type bgState struct {
	mu    sync.Mutex
	sub   *background.Subtractor
	ready map[int][]uint8
}

var (
	bgMu   sync.Mutex
	bgSubs = map[int64]*bgState{}
	bgNext int64
)

// bgSettings are BackgroundSubtractor's keywords, nil where not given:
// those given are taken as given (background.Settings.Given), a zero
// included, and the others are the defaults.
type bgSettings struct {
	Learn       *int     `json:"learn"`
	Rank        *int     `json:"rank"`
	Threshold   *float64 `json:"threshold"`
	MinContrast *float64 `json:"min_contrast"`
	MaxContrast *float64 `json:"max_contrast"`
	Median      *int     `json:"median"`
	Absorb      *int     `json:"absorb"`
	Rate        *float64 `json:"rate"`
	KeepHoles   bool     `json:"keep_holes"`
	Color       bool     `json:"color"`
}

// settings returns the keywords as the library's settings.
func (js bgSettings) settings() (background.Settings, error) {
	s, _ := background.Settings{}.Resolved() // the defaults
	s.Workers = 0
	setGiven(&s.Learn, js.Learn)
	setGiven(&s.Rank, js.Rank)
	setGiven(&s.Threshold, js.Threshold)
	setGiven(&s.MinContrast, js.MinContrast)
	setGiven(&s.MaxContrast, js.MaxContrast)
	setGiven(&s.Median, js.Median)
	setGiven(&s.Absorb, js.Absorb)
	setGiven(&s.Rate, js.Rate)
	s.KeepHoles, s.Color = js.KeepHoles, js.Color
	return s.Given()
}

// setGiven sets *dst to *v when v is not nil.
func setGiven[T any](dst, v *T) {
	if v != nil {
		*dst = *v
	}
}

// bgPython names the Python keyword of a background.InputError's input.
var bgPython = map[string]string{"min-contrast": "min_contrast", "max-contrast": "max_contrast"}

// bgCError writes err into msg (n bytes) and returns its exit code.
func bgCError(err error, msg *C.char, n C.int64_t) C.int32_t {
	text, code := err.Error(), exitFailed
	var ie *background.InputError
	if errors.As(err, &ie) {
		name := ie.Input
		if p, ok := bgPython[name]; ok {
			name = p
		}
		text, code = name+": "+ie.Reason, exitBadInput
		if ie.Value != nil {
			text = fmt.Sprintf("%s=%v: %s", name, ie.Value, ie.Reason)
		}
	}
	buf := unsafe.Slice((*byte)(unsafe.Pointer(msg)), int(n))
	k := copy(buf[:len(buf)-1], text)
	buf[k] = 0
	return C.int32_t(code)
}

//export scaledsm_bg_new
func scaledsm_bg_new(width, height C.int64_t, settings *C.char, settingsLen C.int64_t, code *C.int32_t, msg *C.char, msgLen C.int64_t) C.int64_t {
	var js bgSettings
	dec := json.NewDecoder(bytes.NewReader(C.GoBytes(unsafe.Pointer(settings), C.int(settingsLen))))
	dec.DisallowUnknownFields() // a keyword Go does not know is an error, not ignored
	if err := dec.Decode(&js); err != nil {
		*code = bgCError(err, msg, msgLen)
		return 0
	}
	s, err := js.settings()
	if err != nil {
		*code = bgCError(err, msg, msgLen)
		return 0
	}
	sub, err := background.New(int(width), int(height), s)
	if err != nil {
		*code = bgCError(err, msg, msgLen)
		return 0
	}
	bgMu.Lock()
	defer bgMu.Unlock()
	bgNext++
	bgSubs[bgNext] = &bgState{sub: sub, ready: map[int][]uint8{}}
	*code = 0
	return C.int64_t(bgNext)
}

func bgGet(h C.int64_t) *bgState {
	bgMu.Lock()
	defer bgMu.Unlock()
	return bgSubs[int64(h)]
}

// scaledsm_bg_apply feeds one frame (width × height bytes, × 3 in colour:
// R, G, B) and writes
// the mask of the frame index *index into mask; *index is -1 when no mask
// is ready (a learning frame). The masks of the learning frames are kept
// until scaledsm_bg_take asks for them.
//
//export scaledsm_bg_apply
func scaledsm_bg_apply(h C.int64_t, frame *C.uint8_t, mask *C.uint8_t, index *C.int64_t, code *C.int32_t, msg *C.char, msgLen C.int64_t) {
	st := bgGet(h)
	if st == nil {
		*code = bgCError(errors.New("no such subtractor"), msg, msgLen)
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	w, ht := st.sub.Size()
	ch := 1
	if st.sub.Settings().Color {
		ch = 3
	}
	f := unsafe.Slice((*uint8)(unsafe.Pointer(frame)), w*ht*ch)
	out := unsafe.Slice((*uint8)(unsafe.Pointer(mask)), w*ht)
	this := st.sub.Frames()
	*index = -1
	err := st.sub.Apply(context.Background(), f, func(i int, m []uint8) error {
		if i == this {
			copy(out, m)
			*index = C.int64_t(i)
			return nil
		}
		st.ready[i] = append([]uint8(nil), m...)
		return nil
	})
	if err != nil {
		*code = bgCError(err, msg, msgLen)
		return
	}
	if *index < 0 && len(st.ready) > 0 { // the last learning frame's mask came with the others
		if m, ok := st.ready[this]; ok {
			copy(out, m)
			delete(st.ready, this)
			*index = C.int64_t(this)
		}
	}
	*code = 0
}

// scaledsm_bg_take writes the mask of frame index into mask, if it is
// kept (a learning frame's), and forgets it; it returns 1 when it was.
//
//export scaledsm_bg_take
func scaledsm_bg_take(h C.int64_t, index C.int64_t, mask *C.uint8_t) C.int32_t {
	st := bgGet(h)
	if st == nil {
		return 0
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	m, ok := st.ready[int(index)]
	if !ok {
		return 0
	}
	w, ht := st.sub.Size()
	copy(unsafe.Slice((*uint8)(unsafe.Pointer(mask)), w*ht), m)
	delete(st.ready, int(index))
	return 1
}

// scaledsm_bg_background writes the background the subtractor holds into
// out (width × height bytes, × 3 in colour); it returns 0 before the
// background is learned.
//
//export scaledsm_bg_background
func scaledsm_bg_background(h C.int64_t, out *C.uint8_t) C.int32_t {
	st := bgGet(h)
	if st == nil {
		return 0
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	b := st.sub.Background()
	if b == nil {
		return 0
	}
	copy(unsafe.Slice((*uint8)(unsafe.Pointer(out)), len(b)), b)
	return 1
}

// scaledsm_bg_flush learns from the frames applied when fewer than the
// learning window came (a short video) and keeps their masks for
// scaledsm_bg_take; it returns the number of masks kept.
//
//export scaledsm_bg_flush
func scaledsm_bg_flush(h C.int64_t, code *C.int32_t, msg *C.char, msgLen C.int64_t) C.int64_t {
	st := bgGet(h)
	if st == nil {
		*code = bgCError(errors.New("no such subtractor"), msg, msgLen)
		return 0
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	err := st.sub.Flush(context.Background(), func(i int, m []uint8) error {
		st.ready[i] = append([]uint8(nil), m...)
		return nil
	})
	if err != nil {
		*code = bgCError(err, msg, msgLen)
		return 0
	}
	*code = 0
	return C.int64_t(len(st.ready))
}

// scaledsm_bg_kept writes the indices of the masks kept (up to n, in
// increasing order) into out and returns how many there are.
//
//export scaledsm_bg_kept
func scaledsm_bg_kept(h C.int64_t, out *C.int64_t, n C.int64_t) C.int64_t {
	st := bgGet(h)
	if st == nil {
		return 0
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	idx := make([]int, 0, len(st.ready))
	for i := range st.ready {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	dst := unsafe.Slice((*int64)(unsafe.Pointer(out)), int(n))
	for j := range min(len(idx), int(n)) {
		dst[j] = int64(idx[j])
	}
	return C.int64_t(len(idx))
}

//export scaledsm_bg_release
func scaledsm_bg_release(h C.int64_t) {
	bgMu.Lock()
	defer bgMu.Unlock()
	delete(bgSubs, int64(h))
}
