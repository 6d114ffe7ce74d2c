//go:build scaledsm_capi

// The prediction part of the C API of the Python package (see capi.go):
// predictions from the fit a solve saved in a directory, by package
// predict.

package main

/*
#include <stdint.h>
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/scaledsm/scaledsm/predict"
)

// scaledsm_predict writes into out the predictions of the n pairs (rows,
// cols) from the fit saved in dir, and into unseen the pairs with a row
// or a column the fit did not have. It returns 0, or the command line's
// exit code with the reason in msg.
//
//export scaledsm_predict
func scaledsm_predict(dir *C.char, dirLen C.int64_t, rows, cols *C.int64_t, n C.int64_t, out *C.double, unseen *C.int64_t, msg *C.char, msgLen C.int64_t) C.int32_t {
	fail := func(err error) C.int32_t {
		buf := unsafe.Slice((*byte)(unsafe.Pointer(msg)), int(msgLen))
		copy(buf[:len(buf)-1], err.Error())
		buf[min(len(err.Error()), len(buf)-1)] = 0
		return exitBadInput
	}
	d := C.GoStringN(dir, C.int(dirLen))
	model, err := predict.Load(d)
	if err != nil {
		return fail(err)
	}
	var r, c []int64
	if n > 0 {
		r = unsafe.Slice((*int64)(unsafe.Pointer(rows)), int(n))
		c = unsafe.Slice((*int64)(unsafe.Pointer(cols)), int(n))
	}
	p, err := model.Predict(r, c)
	if pe := (*predict.PairError)(nil); errors.As(err, &pe) {
		return fail(fmt.Errorf("pair %d: %v", pe.Pair, err))
	} else if err != nil {
		return fail(err)
	}
	if n > 0 {
		copy(unsafe.Slice((*float64)(unsafe.Pointer(out)), int(n)), p.Values)
	}
	*unseen = C.int64_t(p.Unseen)
	return 0
}
