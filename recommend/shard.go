package recommend

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/mem"
	"github.com/scaledsm/scaledsm/internal/reduce"
	"github.com/scaledsm/scaledsm/ranks"
)

// A fit shared among the ranks of an MPI job (Settings.Reducer) starts
// from each rank's part of the ratings, in any split: the ranks' parts one
// after the other are the ratings, in the order that fixes the fit's bits
// (a file's, read by byte ranges). The ranks exchange them once, so that
// each holds the ratings of its block of users in the users' order and of
// its block of items in the items' order (8 bytes a rating in each half,
// about m/P ratings in each), and the table's rows of other ranks' users
// and items are empty. A sweep then crosses the network only as rows: each rank
// makes the rows of its blocks and gathers the others' (sampler.share);
// the Student-t weights are drawn where the rows are made and never sent.
// What one process computes in one pass over all the ratings (the mean,
// the spread, the validation split) is relayed from rank to rank in rank
// order (reduce.Relay), so that every rank ends with one process's bits.

// exchangeChunk is the most ratings a rank sends in one exchange: the
// exchange's buffers stay small beside the table.
const exchangeChunk = 1 << 18

// ratingBytes is a rating's size in an exchange: user, item (int32) and
// value (float32).
const ratingBytes = 12

// exchanger returns the settings' Reducer as an Exchanger, nil alone.
func exchanger(red ranks.Reducer) (ranks.Exchanger, error) {
	if red == nil {
		return nil, nil
	}
	ex, ok := red.(ranks.Exchanger)
	if !ok {
		return nil, &InputError{Source: "recommend", Input: "Reducer", Reason: "cannot exchange ratings (want a ranks.Exchanger, as package mpi's)"}
	}
	return ex, nil
}

// shardTable lays out this rank's share of the ratings from its part x:
// its users' half from the ratings of its users, received from every rank
// in rank order and checked for a pair rated twice, then its items' half
// from the ranks' users' halves, and the mean of all the ratings. It does
// not read x once the users' half is made, so that a caller that lets x
// go lets it be collected as the items' half is made.
func shardTable(x *Indexed, red ranks.Exchanger, workers int) (*table, error) {
	n1, n2 := len(x.Users), len(x.Items)
	sizes := reduce.Gather(red, []float64{float64(n1), float64(n2)})
	for r := 0; r < len(sizes); r += 2 {
		if sizes[r] != float64(n1) || sizes[r+1] != float64(n2) {
			return nil, &InputError{Source: "recommend", Input: "ratings", Reason: fmt.Sprintf("rank %d has %d users and %d items, rank %d %v and %v: every rank must have the ids of all the ratings (ShareIDs)", red.Rank(), n1, n2, r/2, sizes[r], sizes[r+1])}
		}
	}
	mean, m := sharedMean(x, red)
	if m == 0 {
		return nil, &InputError{Source: "recommend", Input: "ratings", Reason: "no ratings"}
	}
	t := &table{n1: n1, n2: n2, m: m, mean: mean, red: red}
	// The ranks' halves hold their indices in 4 bytes (index's w).
	var items, users []int32
	t.uStart, items, t.y.f = half(partSource(x), red, false, n1)
	t.uItem = index{w: items}
	found := 0.0
	if t.rerated(workers) {
		found = 1
	}
	if reduce.Max(red, found) > 0 {
		return nil, shardDuplicate(x, t) // which pair, and where, while x is at hand
	}
	collect()
	// The users' halves are in the users' order, sent in rank order (rank
	// 0's users first): each item's ratings arrive in the users' order, as
	// itemOrder lays them out.
	t.iStart, users, t.iy.f = half(t.usersSource(), red, true, n2)
	t.iUser = index{w: users}
	return t, nil
}

// source is the ratings a rank sends in an exchange: n of them, each
// visiting those from lo to hi in their order.
type source struct {
	n    int
	each func(lo, hi int, f func(u, i int32, v float32))
}

// partSource is the part x of the ratings, in its order.
func partSource(x *Indexed) source {
	return source{x.Len(), func(lo, hi int, f func(u, i int32, v float32)) {
		for k := lo; k < hi; k++ {
			f(x.Rows[k], x.Cols[k], x.Values[k])
		}
	}}
}

// usersSource is this rank's users' half of the table, in the users'
// order (the other ranks' users' rows are empty).
func (t *table) usersSource() source {
	return source{t.y.len(), func(lo, hi int, f func(u, i int32, v float32)) {
		u := sort.Search(t.n1, func(u int) bool { return t.uStart[u+1] > lo })
		for p := lo; p < hi; p++ {
			for p >= t.uStart[u+1] {
				u++
			}
			f(int32(u), t.uItem.at(p), t.y.at(p))
		}
	}}
}

// half returns one half of this rank's table, the ratings of its block of
// the n users (or items) in CSR form: each row's ratings from every rank
// in rank order, each rank's in its order, with their index on the other
// side and their values. Each rating is put in its place as it is
// received: the ranks first tell each row's rank how many ratings they
// send it for each of its rows.
func half(src source, red ranks.Exchanger, items bool, n int) (start []int, idx []int32, vals []float32) {
	p := red.Size()
	key := func(u, i int32) int32 {
		if items {
			return i
		}
		return u
	}
	first, last := part(red.Rank(), n, p)
	// Each rank's counts of the ratings of each row, sent to the row's rank.
	cnt := make([]uint32, n)
	src.each(0, src.n, func(u, i int32, _ float32) { cnt[key(u, i)]++ })
	send := make([][]byte, p)
	for to := range p {
		lo, hi := part(to, n, p)
		for _, c := range cnt[lo:hi] {
			send[to] = binary.LittleEndian.AppendUint32(send[to], c)
		}
	}
	got := red.Exchange(send)
	// at[from][r-first]: where the next rating of row r from rank from goes.
	start = make([]int, n+1)
	at := make([][]int, p)
	for from := range p {
		at[from] = make([]int, last-first)
	}
	total := 0
	for r := first; r < last; r++ {
		start[r] = total
		for from := range p {
			at[from][r-first] = total
			total += int(binary.LittleEndian.Uint32(got[from][4*(r-first):]))
		}
	}
	for r := last; r <= n; r++ {
		start[r] = total
	}
	idx, vals = make([]int32, total), make([]float32, total)
	exchange(src, red, func(u, i int32) int { return owner(int(key(u, i)), n, p) }, func(from int, u, i int32, v float32) {
		r, o := u, i
		if items {
			r, o = i, u
		}
		q := at[from][int(r)-first]
		at[from][int(r)-first]++
		idx[q], vals[q] = o, v
	})
	return start, idx, vals
}

// sharedMean returns the mean of the ranks' parts of the ratings, added
// as one process adds them, in their order, and their number.
func sharedMean(x *Indexed, red ranks.Reducer) (mean float64, m int) {
	m = reduce.Count(red, x.Len())
	state := make([]float64, 2)
	reduce.Relay(red, state, func() {
		s := fsum.Resume(state[0], state[1])
		for _, v := range x.Values {
			s = s.Plus(float64(v))
		}
		state[0], state[1] = s.Parts()
	})
	return fsum.Resume(state[0], state[1]).Value() / float64(m), m
}

// exchange sends each rating of src to the rank that owner names, and
// calls got with each rating this rank receives and the rank it came
// from: those of rank 0 first, each rank's in its order, in rounds of at
// most exchangeChunk ratings a rank.
func exchange(src source, red ranks.Exchanger, owner func(u, i int32) int, got func(from int, u, i int32, v float32)) {
	p := red.Size()
	rounds := int(reduce.Max(red, float64((src.n+exchangeChunk-1)/exchangeChunk)))
	send := make([][]byte, p)
	le := binary.LittleEndian
	for round := range rounds {
		for to := range send {
			send[to] = send[to][:0]
		}
		src.each(min(round*exchangeChunk, src.n), min((round+1)*exchangeChunk, src.n), func(u, i int32, v float32) {
			to := owner(u, i)
			b := le.AppendUint32(send[to], uint32(u))
			b = le.AppendUint32(b, uint32(i))
			send[to] = le.AppendUint32(b, math.Float32bits(v))
		})
		for from, b := range red.Exchange(send) {
			for ; len(b) >= ratingBytes; b = b[ratingBytes:] {
				got(from, int32(le.Uint32(b)), int32(le.Uint32(b[4:])), math.Float32frombits(le.Uint32(b[8:])))
			}
		}
	}
}

// The rows of users and of items are shared among p ranks in blocks of
// ⌈n/p⌉ rows, in rank order.

// owner returns the rank whose block of n rows (users or items) holds row
// r, of p ranks.
func owner(r, n, p int) int { return r / ((n + p - 1) / p) }

// part returns the rows [first, last) of n (users or items) that rank r
// of p holds and makes.
func part(r, n, p int) (first, last int) {
	per := (n + p - 1) / p
	return min(r*per, n), min((r+1)*per, n)
}

// part returns the rows [first, last) of n (users or items) that rank r
// holds and makes: all of them alone.
func (t *table) part(r, n int) (first, last int) {
	if t.red == nil {
		return 0, n
	}
	return part(r, n, t.red.Size())
}

// rank returns this process's rank, 0 alone.
func (t *table) rank() int {
	if t.red == nil {
		return 0
	}
	return t.red.Rank()
}

// relay runs f as one process runs it over all the table's ratings: alone
// once, on ranks on each in turn from the state the one before left (see
// reduce.Relay).
func (t *table) relay(state []float64, f func()) {
	if t.red == nil {
		f()
		return
	}
	reduce.Relay(t.red, state, f)
}

// valueRange returns the smallest and the largest of every rank's values
// (this process's alone).
func valueRange[V float32 | float64](red ranks.Reducer, v []V) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	if len(v) > 0 {
		lo, hi = float64(slices.Min(v)), float64(slices.Max(v))
	}
	if red != nil {
		lo, hi = -reduce.Max(red, -lo), reduce.Max(red, hi)
	}
	return lo, hi
}

// ShareIDs makes a rank's part x of the ratings, indexed by the ids of its
// own ratings (as Ratings.Index or a reader gives them), index the ids of
// all the ranks' parts instead: Users and Items become the union of the
// ranks' ids, increasing, the same on every rank, as FitIndexed on ranks
// wants them; Rows and Cols are mapped to them in place.
func ShareIDs(x *Indexed, red ranks.Reducer) {
	x.Users = shareIDs(x.Users, x.Rows, red)
	x.Items = shareIDs(x.Items, x.Cols, red)
}

// shareIDs returns the union of the ranks' ids, and maps the indices idx
// of this rank's ids to it.
func shareIDs(ids IDs, idx []int32, red ranks.Reducer) IDs {
	counts := reduce.Counts(red, len(ids))
	most := slices.Max(counts)
	buf := make([]float64, 2*most) // each id as its high and low 32 bits, exactly
	for k, id := range ids {
		buf[2*k], buf[2*k+1] = float64(uint64(id)>>32), float64(uint32(id))
	}
	all := reduce.Gather(red, buf)
	var union []int64
	for r, n := range counts {
		for k := range n {
			hi, lo := all[2*(r*most+k)], all[2*(r*most+k)+1]
			union = append(union, int64(uint64(hi)<<32|uint64(lo)))
		}
	}
	slices.Sort(union)
	union = slices.Compact(union)
	to := make([]int32, len(ids))
	j := 0
	for k, id := range ids {
		for union[j] != id {
			j++
		}
		to[k] = int32(j)
	}
	for e, v := range idx {
		idx[e] = to[v]
	}
	return IDs(slices.Clip(union))
}

// shardDuplicate returns the *DuplicateError of a pair rated twice among
// the ranks' ratings: the first pair found by the first rank that finds
// one, with the indices of its ratings among all the ranks' parts in rank
// order.
func shardDuplicate(x *Indexed, t *table) error {
	red := t.red
	found := []float64{-1, -1}
	if u, i, ok := t.duplicatePair(); ok {
		found = []float64{float64(u), float64(i)}
	}
	all := reduce.Gather(red, found)
	var u, i int32 = -1, -1
	for r := 0; r < len(all); r += 2 {
		if all[r] >= 0 {
			u, i = int32(all[r]), int32(all[r+1])
			break
		}
	}
	// Where the pair's ratings are: each rank's first two, as indices
	// among all the ratings.
	offset := 0
	for r, n := range reduce.Counts(red, x.Len()) {
		if r < red.Rank() {
			offset += n
		}
	}
	at := []float64{-1, -1}
	n := 0
	for k := range x.Values {
		if x.Rows[k] == u && x.Cols[k] == i && n < 2 {
			at[n] = float64(offset + k)
			n++
		}
	}
	var ks []int
	for _, k := range reduce.Gather(red, at) {
		if k >= 0 {
			ks = append(ks, int(k))
		}
	}
	return &DuplicateError{User: x.Users[u], Item: x.Items[i], First: ks[0], Second: ks[1]}
}

// duplicatePair returns the first pair of this table's users' half rated
// twice, in the users' order.
func (t *table) duplicatePair() (u, i int32, ok bool) {
	seen := make([]int32, t.n2)
	for u := range t.n1 {
		for p := t.uStart[u]; p < t.uStart[u+1]; p++ {
			i := t.uItem.at(p)
			if seen[i] == int32(u)+1 {
				return int32(u), i, true
			}
			seen[i] = int32(u) + 1
		}
	}
	return 0, 0, false
}

// share makes every rank's rows of x (n rows of width values, each rank
// having made its part) known to every rank. When x has room for every
// rank's block padded to ⌈n/P⌉ rows (see rows), the ranks' blocks are
// gathered into it in place; else through a buffer of x's size.
func (t *table) share(x []float64, n, width int) {
	if t.red == nil {
		return
	}
	size := t.red.Size()
	per := (n + size - 1) / size * width
	first, last := t.part(t.rank(), n)
	if cap(t.gbuf) < per {
		t.gbuf = make([]float64, per)
	}
	mine := t.gbuf[:per]
	clear(mine)
	copy(mine, x[first*width:last*width])
	if total := size * per; cap(x) >= total {
		t.red.Gather(x[:total], mine) // rank r's block at r·per, where its rows are
		return
	}
	all := make([]float64, size*per)
	t.red.Gather(all, mine)
	copy(x, all)
}

// rows returns n rows of width values for share to gather in place: with
// room for the ranks' blocks padded to ⌈n/P⌉ rows.
func (t *table) rows(n, width int) []float64 {
	padded := n
	if t.red != nil {
		p := t.red.Size()
		padded = (n + p - 1) / p * p
	}
	return mem.Make[float64](padded * width)[:n*width]
}
