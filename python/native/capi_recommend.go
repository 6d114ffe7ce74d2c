//go:build scaledsm_capi

// The recommender's part of the C API of the Python package (see capi.go):
// fit a recommend.Model from arrays, predict, save, load. Models live in
// Go memory behind integer handles; what Python receives is copied into
// arrays it allocated.

package main

/*
#include <stdint.h>
*/
import "C"

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"unsafe"

	"github.com/scaledsm/scaledsm/recommend"
)

var (
	recMu     sync.Mutex
	recModels = map[int64]*recommend.Model{}
	recNext   int64
)

// recSettings are the settings of Recommender, by their Python names.
type recSettings struct {
	Method     string   `json:"method"`
	Rank       int      `json:"rank"`
	Sweeps     int      `json:"sweeps"`
	Nu         *float64 `json:"nu"` // null: Gaussian (math.inf in Python)
	Validation float64  `json:"validation"`
	Penalty    float64  `json:"penalty"`
	Seed       uint64   `json:"seed"`
	Lists      *bool    `json:"lists"`    // null: the default, lists fitted
	Implicit   bool     `json:"implicit"` // the values are weights of interactions: the lists alone
}

// recPython names the Python parameter of a recommend.InputError's input.
var recPython = map[string]string{"lambda": "penalty"}

func recStore(m *recommend.Model) C.int64_t {
	recMu.Lock()
	defer recMu.Unlock()
	recNext++
	recModels[recNext] = m
	return C.int64_t(recNext)
}

func recGet(h C.int64_t) *recommend.Model {
	recMu.Lock()
	defer recMu.Unlock()
	return recModels[int64(h)]
}

// recError writes err into msg (n bytes) and returns its exit code: 2 for
// bad input, 130 interrupted, 1 otherwise.
func recError(err error, msg *C.char, n C.int64_t) C.int32_t {
	text, code := err.Error(), exitFailed
	var ie *recommend.InputError
	var dup *recommend.DuplicateError
	switch {
	case errors.Is(err, context.Canceled):
		text, code = "interrupted", exitInterrupted
	case errors.As(err, &ie):
		name := ie.Input
		if p, ok := recPython[name]; ok {
			name = p
		}
		text, code = name+": "+ie.Reason, exitBadInput
		if ie.Value != nil {
			text = fmt.Sprintf("%s=%v: %s", name, ie.Value, ie.Reason)
		}
	case errors.As(err, &dup):
		text, code = fmt.Sprintf("ratings: user %d rated item %d twice (at %d and %d): each pair may be rated once", dup.User, dup.Item, dup.First, dup.Second), exitBadInput
	}
	buf := unsafe.Slice((*byte)(unsafe.Pointer(msg)), int(n))
	k := copy(buf[:len(buf)-1], text)
	buf[k] = 0
	return C.int32_t(code)
}

//export scaledsm_rec_fit
func scaledsm_rec_fit(m C.int64_t, users, items *C.int64_t, ratings *C.double, settings *C.char, settingsLen C.int64_t,
	cancel *C.int32_t, code *C.int32_t, msg *C.char, msgLen C.int64_t) (h C.int64_t) {
	defer func() {
		if r := recover(); r != nil {
			*code = recError(fmt.Errorf("internal error: %v", r), msg, msgLen)
			h = 0
		}
	}()
	var js recSettings
	if err := json.Unmarshal(C.GoBytes(unsafe.Pointer(settings), C.int(settingsLen)), &js); err != nil {
		*code = recError(err, msg, msgLen)
		return 0
	}
	n := int(m)
	r := recommend.Ratings{
		Users:  unsafe.Slice((*int64)(unsafe.Pointer(users)), n),
		Items:  unsafe.Slice((*int64)(unsafe.Pointer(items)), n),
		Values: unsafe.Slice((*float64)(unsafe.Pointer(ratings)), n),
	}
	ctx, stop := capiCancel((*int32)(unsafe.Pointer(cancel)))
	defer stop()
	if js.Implicit {
		// Index copies the arrays: Python's memory is read during the call only.
		model, err := recommend.FitInteractions(ctx, r.Index(), recommend.Settings{Seed: js.Seed})
		if err != nil {
			*code = recError(err, msg, msgLen)
			return 0
		}
		*code = 0
		return recStore(model)
	}
	s := recommend.Settings{Rank: js.Rank, Sweeps: js.Sweeps, Validation: js.Validation, Lambda: js.Penalty, Seed: js.Seed, Nu: math.Inf(1),
		NoLists: js.Lists != nil && !*js.Lists}
	if js.Nu != nil {
		s.Nu = *js.Nu
	}
	method, err := recommend.ParseMethod(js.Method)
	if err != nil {
		*code = recError(err, msg, msgLen)
		return 0
	}
	s.Method = method
	if method == recommend.Ridge && js.Nu != nil && *js.Nu == recommend.DefaultNu {
		s.Nu = math.Inf(1) // the default nu does not apply to ridge
	}
	// Fit keeps no reference to the arrays: Python's memory is read
	// during the call only.
	model, err := recommend.Fit(ctx, r, s)
	if err != nil {
		*code = recError(err, msg, msgLen)
		return 0
	}
	*code = 0
	return recStore(model)
}

//export scaledsm_rec_predict
func scaledsm_rec_predict(h C.int64_t, n C.int64_t, users, items *C.int64_t, out *C.double, known *C.int8_t) C.int32_t {
	m := recGet(h)
	if m == nil {
		return 1
	}
	u := unsafe.Slice((*int64)(unsafe.Pointer(users)), int(n))
	i := unsafe.Slice((*int64)(unsafe.Pointer(items)), int(n))
	m.PredictAll(u, i, unsafe.Slice((*float64)(unsafe.Pointer(out)), int(n)))
	if known != nil {
		k := unsafe.Slice((*int8)(unsafe.Pointer(known)), int(n))
		for j := range k {
			ku, ki := m.Known(u[j], i[j])
			k[j] = 0
			if ku {
				k[j] |= 1
			}
			if ki {
				k[j] |= 2
			}
		}
	}
	return 0
}

//export scaledsm_rec_foldin
func scaledsm_rec_foldin(h C.int64_t, m C.int64_t, users, items *C.int64_t, values *C.double, cancel *C.int32_t,
	code *C.int32_t, msg *C.char, msgLen C.int64_t) (out C.int64_t) {
	defer func() {
		if r := recover(); r != nil {
			*code = recError(fmt.Errorf("internal error: %v", r), msg, msgLen)
			out = 0
		}
	}()
	model := recGet(h)
	if model == nil {
		*code = recError(errors.New("no such model"), msg, msgLen)
		return 0
	}
	n := int(m)
	// FoldIn copies what it keeps: Python's memory is read during the call only.
	r := recommend.Ratings{
		Users:  unsafe.Slice((*int64)(unsafe.Pointer(users)), n),
		Items:  unsafe.Slice((*int64)(unsafe.Pointer(items)), n),
		Values: unsafe.Slice((*float64)(unsafe.Pointer(values)), n),
	}
	ctx, stop := capiCancel((*int32)(unsafe.Pointer(cancel)))
	defer stop()
	folded, _, err := model.FoldIn(ctx, r, 0)
	if err != nil {
		*code = recError(err, msg, msgLen)
		return 0
	}
	*code = 0
	return recStore(folded)
}

//export scaledsm_rec_recommend
func scaledsm_rec_recommend(h C.int64_t, nu C.int64_t, users *C.int64_t, n C.int64_t, includeSeen, cold C.int32_t,
	outItems *C.int64_t, outScores *C.double, cancel *C.int32_t, code *C.int32_t, msg *C.char, msgLen C.int64_t) {
	m := recGet(h)
	if m == nil {
		*code = recError(errors.New("no such model"), msg, msgLen)
		return
	}
	var ids []int64 // nil: every user
	if users != nil {
		ids = unsafe.Slice((*int64)(unsafe.Pointer(users)), int(nu))
	}
	rows := int(nu)
	if ids == nil {
		rows = len(m.Users)
	}
	items := unsafe.Slice((*int64)(unsafe.Pointer(outItems)), rows*int(n))
	scores := unsafe.Slice((*float64)(unsafe.Pointer(outScores)), rows*int(n))
	ctx, stop := capiCancel((*int32)(unsafe.Pointer(cancel)))
	defer stop()
	o := recommend.ListOptions{N: int(n), IncludeSeen: includeSeen != 0, Cold: recommend.Cold(cold)}
	at := 0
	err := m.Recommend(ctx, ids, o, func(l recommend.List) error {
		row := at * int(n)
		for k := range int(n) {
			items[row+k], scores[row+k] = -1, math.NaN()
			if k < len(l.Items) {
				items[row+k], scores[row+k] = l.Items[k], l.Scores[k]
			}
		}
		at++
		return nil
	})
	if err != nil {
		*code = recError(err, msg, msgLen)
		return
	}
	*code = 0
}

// recInfo is what scaledsm_rec_info returns: the model's sizes and scalars.
type recInfo struct {
	Mean  float64        `json:"mean"`
	Min   float64        `json:"min"`
	Max   float64        `json:"max"`
	Users int            `json:"users"`
	Items int            `json:"items"`
	Rank  int            `json:"rank"`
	Info  recommend.Info `json:"info"`
	Lists bool           `json:"lists"` // whether the model has lists (Recommend)
}

//export scaledsm_rec_info
func scaledsm_rec_info(h C.int64_t, buf *C.char, n C.int64_t) C.int64_t {
	m := recGet(h)
	if m == nil {
		return -1
	}
	b, err := json.Marshal(recInfo{Mean: m.Mean, Min: m.Min, Max: m.Max, Users: len(m.Users), Items: len(m.Items), Rank: m.Rank(), Info: m.Info, Lists: m.Lists != nil})
	if err != nil {
		return -1
	}
	if buf != nil && int(n) >= len(b) {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(buf)), len(b)), b)
	}
	return C.int64_t(len(b))
}

//export scaledsm_rec_arrays
func scaledsm_rec_arrays(h C.int64_t, userIDs, itemIDs *C.int64_t, userBias, itemBias, l, r *C.double) C.int32_t {
	m := recGet(h)
	if m == nil {
		return 1
	}
	copy(unsafe.Slice((*int64)(unsafe.Pointer(userIDs)), len(m.Users)), m.Users)
	copy(unsafe.Slice((*int64)(unsafe.Pointer(itemIDs)), len(m.Items)), m.Items)
	copy(unsafe.Slice((*float64)(unsafe.Pointer(userBias)), len(m.UserBias)), m.UserBias)
	copy(unsafe.Slice((*float64)(unsafe.Pointer(itemBias)), len(m.ItemBias)), m.ItemBias)
	if k := m.Rank(); k > 0 && l != nil && r != nil {
		copy(unsafe.Slice((*float64)(unsafe.Pointer(l)), len(m.Users)*k), m.L.RawMatrix().Data)
		copy(unsafe.Slice((*float64)(unsafe.Pointer(r)), len(m.Items)*k), m.R.RawMatrix().Data)
	}
	return 0
}

//export scaledsm_rec_save
func scaledsm_rec_save(h C.int64_t, dir *C.char, dirLen C.int64_t, msg *C.char, msgLen C.int64_t) C.int32_t {
	m := recGet(h)
	if m == nil {
		return recError(errors.New("no such model"), msg, msgLen)
	}
	if err := m.Save(C.GoStringN(dir, C.int(dirLen))); err != nil {
		recError(err, msg, msgLen)
		return exitOutput
	}
	return 0
}

//export scaledsm_rec_load
func scaledsm_rec_load(dir *C.char, dirLen C.int64_t, code *C.int32_t, msg *C.char, msgLen C.int64_t) C.int64_t {
	m, err := recommend.Load(C.GoStringN(dir, C.int(dirLen)))
	if err != nil {
		*code = recError(err, msg, msgLen)
		return 0
	}
	*code = 0
	return recStore(m)
}

//export scaledsm_rec_release
func scaledsm_rec_release(h C.int64_t) {
	recMu.Lock()
	delete(recModels, int64(h))
	recMu.Unlock()
}
