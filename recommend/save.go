package recommend

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm/dataio"
	"github.com/scaledsm/scaledsm/internal/atomicio"
)

// The files of a saved model. NumPy reads each as it is:
//
//	import json, numpy as np
//	m = json.load(open(d + "/model.json"))
//	users, items = np.load(d + "/user_ids.npy"), np.load(d + "/item_ids.npy")
//	b, c = np.load(d + "/user_bias.npy"), np.load(d + "/item_bias.npy")
//	L, R = np.load(d + "/L.npy"), np.load(d + "/R.npy")
//	u, i = np.searchsorted(users, user), np.searchsorted(items, item)
//	p = np.clip(m["mean"] + b[u] + c[i] + L[u] @ R[i], m["min"], m["max"])
const (
	ModelFile    = "model.json"
	UserIDsFile  = "user_ids.npy"
	ItemIDsFile  = "item_ids.npy"
	UserBiasFile = "user_bias.npy"
	ItemBiasFile = "item_bias.npy"
	LFile        = "L.npy"
	RFile        = "R.npy"
	// The lists (Model.Lists): their factors, and what a fold-in needs
	// (the items' column scales, the squared singular values).
	ListsPFile     = "lists_P.npy"
	ListsQFile     = "lists_Q.npy"
	ListsScaleFile = "lists_scale.npy"
	ListsSig2File  = "lists_sig2.npy"
	// The training ratings by user (Model.Seen): user u's item positions
	// seen_items[seen_start[u]:seen_start[u+1]], their values in
	// seen_values.
	SeenStartFile  = "seen_start.npy"
	SeenItemsFile  = "seen_items.npy"
	SeenValuesFile = "seen_values.npy"
)

// Format names the layout of a saved model in its model.json.
const Format = "scaledsm-recommender/1"

// modelJSON is model.json: the scalars of the model, how it was fitted,
// and a checksum of each array file, so that Load refuses a directory
// whose files come from different saves.
type modelJSON struct {
	Format     string            `json:"format"`
	Prediction string            `json:"prediction"`
	Mean       float64           `json:"mean"`
	Min        float64           `json:"min"`
	Max        float64           `json:"max"`
	Users      int               `json:"users"`
	Items      int               `json:"items"`
	Rank       int               `json:"rank"`
	Info       Info              `json:"info"`
	Lists      *listsJSON        `json:"lists,omitempty"`
	Seen       *int              `json:"seen,omitempty"` // the training ratings held by user (Model.Seen)
	Files      map[string]string `json:"files"`          // name: FNV-1a 64 of its bytes, hex
}

// listsJSON is model.json's account of the lists.
type listsJSON struct {
	Score     string         `json:"score"`
	Rank      int            `json:"rank"`
	Pop       float64        `json:"pop"`
	Lambda    float64        `json:"lambda"`
	Lambda0   float64        `json:"lambda0"`
	Weights   string         `json:"weights"` // "rating": lo + span maps to 1, lo to 0.2; "value"
	Lo        float64        `json:"lo"`
	Span      float64        `json:"span"`
	Selection *ListSelection `json:"selection,omitempty"`
}

const listsFormula = "lists_P[u] @ lists_Q[i], the user's seen items (seen_items[seen_start[u]:seen_start[u+1]]) left out"

const predictionFormula = "clip(mean + user_bias[u] + item_bias[i] + L[u] @ R[i], min, max), u and i the positions of the ids in user_ids and item_ids; an unseen id has no bias and no factor term"

// A File is a file that Save writes beside the model, in the same set.
type File struct {
	Name  string
	Write func(io.Writer) error
}

// Save writes the model to the directory dir, created if need be, as .npy
// files and model.json, and the extra files with them. Every file goes to
// a temporary name first, and all are renamed into place once all are
// complete, model.json last: a Save that fails (a full disk) leaves the
// directory as it was, and one interrupted among the renames leaves the
// old model.json, which Load then refuses if the arrays changed under it.
func (m *Model) Save(dir string, extra ...File) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	type file struct {
		name  string
		write func(io.Writer) error
	}
	arrays := []file{
		{UserIDsFile, func(w io.Writer) error { return dataio.WriteInt64(w, []int{len(m.Users)}, m.Users) }},
		{ItemIDsFile, func(w io.Writer) error { return dataio.WriteInt64(w, []int{len(m.Items)}, m.Items) }},
		{UserBiasFile, func(w io.Writer) error { return dataio.WriteFloat64(w, []int{len(m.UserBias)}, m.UserBias) }},
		{ItemBiasFile, func(w io.Writer) error { return dataio.WriteFloat64(w, []int{len(m.ItemBias)}, m.ItemBias) }},
	}
	k := m.Rank()
	if k > 0 {
		arrays = append(arrays,
			file{LFile, func(w io.Writer) error { return dataio.WriteFloat64(w, []int{len(m.Users), k}, m.L.RawMatrix().Data) }},
			file{RFile, func(w io.Writer) error { return dataio.WriteFloat64(w, []int{len(m.Items), k}, m.R.RawMatrix().Data) }})
	}
	if l := m.Lists; l != nil {
		kl := l.Rank()
		arrays = append(arrays,
			file{ListsPFile, func(w io.Writer) error { return dataio.WriteFloat64(w, []int{len(m.Users), kl}, l.P.RawMatrix().Data) }},
			file{ListsQFile, func(w io.Writer) error { return dataio.WriteFloat64(w, []int{len(m.Items), kl}, l.Q.RawMatrix().Data) }},
			file{ListsScaleFile, func(w io.Writer) error { return dataio.WriteFloat64(w, []int{len(l.Scale)}, l.Scale) }},
			file{ListsSig2File, func(w io.Writer) error { return dataio.WriteFloat64(w, []int{len(l.Sig2)}, l.Sig2) }})
	}
	if seen := m.Seen; seen != nil {
		arrays = append(arrays,
			file{SeenStartFile, func(w io.Writer) error { return dataio.WriteInt64(w, []int{len(seen.Start)}, seen.Start) }},
			file{SeenItemsFile, func(w io.Writer) error {
				// Items held in 2 bytes widened a part at a time.
				var buf []int32
				return dataio.WriteInt32Parts(w, []int{seen.Len()}, seen.Len(),
					func(lo, hi int) []int32 { return seen.items.slice(lo, hi, &buf) })
			}},
			file{SeenValuesFile, func(w io.Writer) error {
				// Coded values decoded a part at a time, not whole: at 10^8
				// ratings the whole would be 400 MB above the fit's peak.
				var buf []float32
				return dataio.WriteArrayParts(w, dataio.Header{Dtype: "<f4", Shape: []int{seen.Len()}}, seen.vals.len(),
					func(lo, hi int) []float32 { return seen.vals.slice(lo, hi, &buf) })
			}})
	}
	js := modelJSON{Format: Format, Prediction: predictionFormula, Mean: m.Mean, Min: m.Min, Max: m.Max,
		Users: len(m.Users), Items: len(m.Items), Rank: k, Info: m.Info, Files: map[string]string{}}
	if l := m.Lists; l != nil {
		js.Lists = &listsJSON{Score: listsFormula, Rank: l.Rank(), Pop: l.Pop, Lambda: l.Lambda, Lambda0: l.Lambda0,
			Weights: l.Weights, Lo: l.Lo, Span: l.Span, Selection: l.Selection}
	}
	if m.Seen != nil {
		n := m.Seen.Len()
		js.Seen = &n
	}
	// The files are written on the cores, each hashed as it is written:
	// generate's 9 × 10^6 ratings' seen items and values are 36 MB each,
	// and one file's hashing and sync took 0.27 s, after the others'.
	var set atomicio.Set
	var paths []string
	var writes []func(io.Writer) error
	hashes := make([]hash.Hash64, len(arrays))
	for j, a := range arrays {
		h := fnv.New64a()
		hashes[j] = h
		paths = append(paths, filepath.Join(dir, a.name))
		writes = append(writes, func(w io.Writer) error { return a.write(io.MultiWriter(w, h)) })
	}
	for _, f := range extra {
		paths, writes = append(paths, filepath.Join(dir, f.Name)), append(writes, f.Write)
	}
	if err := set.AddAll(paths, writes, runtime.GOMAXPROCS(0)); err != nil {
		return err
	}
	for j, a := range arrays {
		js.Files[a.name] = fmt.Sprintf("%016x", hashes[j].Sum64())
	}
	b, err := json.MarshalIndent(js, "", "  ")
	if err != nil {
		set.Discard()
		return err
	}
	if err := set.Add(filepath.Join(dir, ModelFile), func(w io.Writer) error { _, err := w.Write(append(b, '\n')); return err }); err != nil {
		return err
	}
	var stale []string // files of an earlier save that would not match model.json
	if k == 0 {
		stale = append(stale, LFile, RFile)
	}
	if m.Lists == nil {
		stale = append(stale, ListsPFile, ListsQFile, ListsScaleFile, ListsSig2File)
	}
	if m.Seen == nil {
		stale = append(stale, SeenStartFile, SeenItemsFile, SeenValuesFile)
	}
	if len(stale) > 0 {
		for _, name := range stale {
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
				set.Discard()
				return err
			}
		}
	}
	return set.Commit()
}

// ModelFiles returns the names of the files Save writes for m, model.json
// first, the ids and biases, then what m has of L and R, the lists and the
// training ratings.
func ModelFiles(m *Model) []string {
	files := []string{ModelFile, UserIDsFile, ItemIDsFile, UserBiasFile, ItemBiasFile}
	if m.Rank() > 0 {
		files = append(files, LFile, RFile)
	}
	if m.Lists != nil {
		files = append(files, ListsPFile, ListsQFile, ListsScaleFile, ListsSig2File)
	}
	if m.Seen != nil {
		files = append(files, SeenStartFile, SeenItemsFile, SeenValuesFile)
	}
	return files
}

// IsModel reports whether dir holds a saved model (its model.json).
func IsModel(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ModelFile))
	return err == nil
}

// Load reads a model that Save wrote. Errors name the file at fault.
func Load(dir string) (*Model, error) {
	d := modelDir{dir: dir}
	if err := d.readJSON(); err != nil {
		return nil, err
	}
	js := d.js
	m := &Model{Mean: js.Mean, Min: js.Min, Max: js.Max, Info: js.Info}
	var err error
	if m.Users, err = d.ids(UserIDsFile, js.Users); err != nil {
		return nil, err
	}
	if m.Items, err = d.ids(ItemIDsFile, js.Items); err != nil {
		return nil, err
	}
	if m.UserBias, err = d.floats(UserBiasFile, js.Users); err != nil {
		return nil, err
	}
	if m.ItemBias, err = d.floats(ItemBiasFile, js.Items); err != nil {
		return nil, err
	}
	if js.Rank > 0 {
		l, err := d.floats(LFile, js.Users, js.Rank)
		if err != nil {
			return nil, err
		}
		r, err := d.floats(RFile, js.Items, js.Rank)
		if err != nil {
			return nil, err
		}
		if js.Users > 0 {
			m.L = mat.NewDense(js.Users, js.Rank, l)
		}
		if js.Items > 0 {
			m.R = mat.NewDense(js.Items, js.Rank, r)
		}
		if m.L == nil || m.R == nil {
			m.L, m.R = nil, nil
		}
	}
	if js.Seen != nil {
		if m.Seen, err = d.seen(*js.Seen); err != nil {
			return nil, err
		}
	}
	if js.Lists != nil {
		if m.Lists, err = d.lists(); err != nil {
			return nil, err
		}
		if m.Seen == nil {
			return nil, d.fail(ModelFile, "has lists and no training ratings (seen)")
		}
	}
	return m, nil
}

// lists reads the lists that model.json describes.
func (d *modelDir) lists() (*Lists, error) {
	js := d.js
	lj := js.Lists
	if lj.Rank < 1 || js.Users < 1 || js.Items < 1 {
		return nil, d.fail(ModelFile, "inconsistent lists: rank %d of %d users and %d items", lj.Rank, js.Users, js.Items)
	}
	p, err := d.floats(ListsPFile, js.Users, lj.Rank)
	if err != nil {
		return nil, err
	}
	q, err := d.floats(ListsQFile, js.Items, lj.Rank)
	if err != nil {
		return nil, err
	}
	scale, err := d.floats(ListsScaleFile, js.Items)
	if err != nil {
		return nil, err
	}
	sig2, err := d.floats(ListsSig2File, lj.Rank)
	if err != nil {
		return nil, err
	}
	return &Lists{P: mat.NewDense(js.Users, lj.Rank, p), Q: mat.NewDense(js.Items, lj.Rank, q), Pop: lj.Pop, Lambda: lj.Lambda,
		Scale: scale, Sig2: sig2, Lambda0: lj.Lambda0, Weights: lj.Weights, Lo: lj.Lo, Span: lj.Span, Selection: lj.Selection}, nil
}

// seen reads the n training ratings by user.
func (d *modelDir) seen(n int) (*Seen, error) {
	js := d.js
	if n < 0 {
		return nil, d.fail(ModelFile, "%d training ratings", n)
	}
	start, err := d.ints(SeenStartFile, js.Users+1)
	if err != nil {
		return nil, err
	}
	items, err := d.ints(SeenItemsFile, n)
	if err != nil {
		return nil, err
	}
	values, err := d.floats(SeenValuesFile, n)
	if err != nil {
		return nil, err
	}
	s := &Seen{Start: start, items: makeIndex(n, js.Items), vals: stored{f: make([]float32, n)}}
	for k, i := range items {
		if i < 0 || i >= int64(js.Items) {
			return nil, d.fail(SeenItemsFile, "item position %d at [%d] is out of range [0, %d)", i, k, js.Items)
		}
		s.items.set(k, int32(i))
		s.vals.f[k] = float32(values[k])
	}
	if start[0] != 0 || start[js.Users] != int64(n) {
		return nil, d.fail(SeenStartFile, "starts at %d and ends at %d, want 0 and %d", start[0], start[js.Users], n)
	}
	for u := range js.Users {
		if start[u+1] < start[u] {
			return nil, d.fail(SeenStartFile, "decreases at [%d]", u+1)
		}
	}
	return s, nil
}

// ints reads the n integers of the file name.
func (d *modelDir) ints(name string, n int) ([]int64, error) {
	if err := d.check(name); err != nil {
		return nil, err
	}
	v, shape, err := dataio.ReadInts(filepath.Join(d.dir, name))
	if err != nil {
		return nil, d.fail(name, "%v", dataio.Reason(err))
	}
	if len(shape) != 1 || shape[0] != n {
		return nil, d.fail(name, "shape %s, want (%d,)", dataio.ShapeString(shape), n)
	}
	return v, nil
}

// modelDir is a model's directory as Load reads it: its model.json, then
// each file checked against the checksum model.json gives it.
type modelDir struct {
	dir string
	js  modelJSON
}

// fail is the error of the file name in the directory.
func (d *modelDir) fail(name string, format string, args ...any) error {
	return &InputError{Source: "recommend", Input: filepath.Join(d.dir, name), Reason: fmt.Sprintf(format, args...)}
}

// readJSON reads and checks model.json.
func (d *modelDir) readJSON() error {
	b, err := os.ReadFile(filepath.Join(d.dir, ModelFile))
	if err != nil {
		return d.fail(ModelFile, "cannot read: %v", unwrapPath(err))
	}
	js := &d.js
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(js); err != nil {
		return d.fail(ModelFile, "not a model: %v", err)
	}
	if js.Format != Format {
		return d.fail(ModelFile, "format %q, want %q", js.Format, Format)
	}
	if js.Users < 0 || js.Items < 0 || js.Rank < 0 || !(js.Min <= js.Max) || math.IsNaN(js.Mean) || math.IsInf(js.Mean, 0) {
		return d.fail(ModelFile, "inconsistent: %d users, %d items, rank %d, scale [%v, %v], mean %v", js.Users, js.Items, js.Rank, js.Min, js.Max, js.Mean)
	}
	return nil
}

// check reads a file's bytes against model.json's checksum.
func (d *modelDir) check(name string) error {
	want, ok := d.js.Files[name]
	if !ok {
		return d.fail(ModelFile, "lists no checksum for %s", name)
	}
	data, err := os.ReadFile(filepath.Join(d.dir, name))
	if err != nil {
		return d.fail(name, "cannot read: %v", unwrapPath(err))
	}
	h := fnv.New64a()
	h.Write(data)
	if got := fmt.Sprintf("%016x", h.Sum64()); got != want {
		return d.fail(name, "does not belong to this model.json (its checksum is %s, model.json says %s): a later save was interrupted or two saves mixed their files", got, want)
	}
	return nil
}

// ids reads the n increasing ids of the file name.
func (d *modelDir) ids(name string, n int) (IDs, error) {
	if err := d.check(name); err != nil {
		return nil, err
	}
	v, shape, err := dataio.ReadInts(filepath.Join(d.dir, name))
	if err != nil {
		return nil, d.fail(name, "%v", dataio.Reason(err))
	}
	if len(shape) != 1 || shape[0] != n {
		return nil, d.fail(name, "shape %s, want (%d,)", dataio.ShapeString(shape), n)
	}
	for k := 1; k < n; k++ {
		if v[k] <= v[k-1] {
			return nil, d.fail(name, "not increasing at [%d]", k)
		}
	}
	return IDs(v), nil
}

// floats reads the finite numbers of the file name, of the given shape.
func (d *modelDir) floats(name string, shape ...int) ([]float64, error) {
	if err := d.check(name); err != nil {
		return nil, err
	}
	v, got, err := dataio.ReadFile(filepath.Join(d.dir, name))
	if err != nil {
		return nil, d.fail(name, "%v", dataio.Reason(err))
	}
	if dataio.ShapeString(got) != dataio.ShapeString(shape) {
		return nil, d.fail(name, "shape %s, want %s", dataio.ShapeString(got), dataio.ShapeString(shape))
	}
	for k, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, d.fail(name, "element %d is %v", k, x)
		}
	}
	return v, nil
}

// unwrapPath returns the reason of a *os.PathError, whose path the caller
// names already.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
