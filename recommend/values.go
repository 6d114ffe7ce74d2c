package recommend

import (
	"math"
	"slices"

	"github.com/scaledsm/scaledsm/internal/par"
	"github.com/scaledsm/scaledsm/ranks"
)

// stored are the values of a table's ratings in one of its orders: float32 each, or,
// where the ratings take at most 255 values (stars, half stars, a
// like: the scales of MovieLens, Netflix and Yahoo!), a byte each, the
// code of the value in a scale. The codes give the values bit for bit,
// at a quarter of the memory: 6 bytes a rating less for both orders of
// a table (at 10^8 ratings, 572 MiB less). A rating held out
// (NaN) is the code heldCode.
type stored struct {
	f     []float32 // the values, when not coded
	c     []uint8   // their codes, when coded
	scale *scale
}

// at returns the value at p.
func (v stored) at(p int) float32 {
	if v.c != nil {
		return v.scale.vals[v.c[p]]
	}
	return v.f[p]
}

// set sets the value at p to x, NaN or a value of the scale when coded.
func (v stored) set(p int, x float32) {
	if v.c != nil {
		v.c[p] = v.scale.code(x)
		return
	}
	v.f[p] = x
}

// copy sets the value at p to src's at q, both coded by one scale or
// neither.
func (v stored) copy(p int, src stored, q int) {
	if v.c != nil {
		v.c[p] = src.c[q]
		return
	}
	v.f[p] = src.f[q]
}

// len returns the number of values.
func (v stored) len() int {
	if v.c != nil {
		return len(v.c)
	}
	return len(v.f)
}

// slice returns the values from lo to hi: a part of f, or the codes'
// values in *buf, grown as needed.
func (v stored) slice(lo, hi int, buf *[]float32) []float32 {
	if v.c == nil {
		return v.f[lo:hi]
	}
	if cap(*buf) < hi-lo {
		*buf = make([]float32, hi-lo)
	}
	cs := v.c[lo:hi]
	out := (*buf)[:len(cs)]
	vals := &v.scale.vals
	for j := range cs {
		out[j] = vals[cs[j]]
	}
	return out
}

// floats returns the values as float32: f itself, or the codes' values
// in a slice of their own.
func (v stored) floats() []float32 {
	if v.c == nil {
		return v.f
	}
	out := make([]float32, len(v.c))
	for p, c := range v.c {
		out[p] = v.scale.vals[c]
	}
	return out
}

// valueRange returns the least and the greatest value (NaN for both if
// one is NaN, as slices.Min and Max give them), over the ranks.
func (v stored) valueRange(red ranks.Reducer) (lo, hi float64) {
	if v.c == nil {
		return valueRange(red, v.f)
	}
	var seen [256]bool
	for _, c := range v.c {
		seen[c] = true
	}
	var used []float32
	for c, ok := range seen {
		if ok {
			used = append(used, v.scale.vals[c])
		}
	}
	return valueRange(red, used)
}

// heldCode is the code of a rating held out, NaN.
const heldCode = 255

// scale is the values that codes stand for: vals[c] is the value of code
// c, the n values of the ratings in increasing order (0 before -0, by
// their bits), then NaN. Codes are found by the value's bits in
// a table of slots (open addressing).
type scale struct {
	vals  [256]float32
	n     int
	slot  [scaleSlots]uint32 // the bits+1 of a value, 0 for none
	codes [scaleSlots]uint8
}

// scaleSlots is the size of a scale's table of codes: at most a quarter
// full.
const scaleSlots = 1024

// find returns the slot of the bits b: where they are, or the empty slot
// where they would go.
func (s *scale) find(b uint32) int {
	h := int((b * 0x9E3779B1) >> 22) // of scaleSlots
	for s.slot[h] != 0 && s.slot[h] != b+1 {
		h = (h + 1) % scaleSlots
	}
	return h
}

// code returns the code of x, held for NaN; x must be a value of the
// scale.
func (s *scale) code(x float32) uint8 {
	if x != x {
		return heldCode
	}
	return s.codes[s.find(math.Float32bits(x))]
}

// encode returns the codes of the values v, all of the scale, on workers
// cores.
func (s *scale) encode(v []float32, workers int) []uint8 {
	c := make([]uint8, len(v))
	parts := max(1, min(workers, len(v)/(1<<20)))
	par.Do(parts, parts, func(w int) {
		lo, hi := w*len(v)/parts, (w+1)*len(v)/parts
		for k, x := range v[lo:hi] {
			c[lo+k] = s.code(x)
		}
	})
	return c
}

// newScale returns the scale of the values, nil if they take more than
// 255 values (or NaN), found on workers cores.
func newScale(v []float32, workers int) *scale {
	const most = heldCode
	parts := max(1, min(workers, len(v)/(1<<20)))
	sets := make([][]uint32, parts)
	par.Do(parts, parts, func(w int) {
		var s scale
		bits := []uint32{} // not nil: nil says too many
		last := uint32(math.MaxUint32)
		for _, x := range v[w*len(v)/parts : (w+1)*len(v)/parts] {
			if x != x {
				return
			}
			b := math.Float32bits(x)
			if b == last {
				continue
			}
			last = b
			if h := s.find(b); s.slot[h] == 0 {
				if len(bits) == most {
					return
				}
				s.slot[h] = b + 1
				bits = append(bits, b)
			}
		}
		sets[w] = bits
	})
	var all []uint32
	for _, bits := range sets {
		if bits == nil {
			return nil
		}
		all = append(all, bits...)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	if len(all) > most {
		return nil
	}
	slices.SortFunc(all, func(a, b uint32) int {
		x, y := math.Float32frombits(a), math.Float32frombits(b)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return int(int64(a) - int64(b))
	})
	s := &scale{n: len(all)}
	for c := range s.vals {
		s.vals[c] = float32(math.NaN())
	}
	for c, b := range all {
		s.vals[c] = math.Float32frombits(b)
		h := s.find(b)
		s.slot[h], s.codes[h] = b+1, uint8(c)
	}
	return s
}
