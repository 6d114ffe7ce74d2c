package recommend

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

func readTab(t *testing.T, path string) Ratings {
	f, err := os.Open(path)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	var r Ratings
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		u, _ := strconv.ParseInt(fs[0], 10, 64)
		i, _ := strconv.ParseInt(fs[1], 10, 64)
		v, _ := strconv.ParseFloat(fs[2], 64)
		r.Users = append(r.Users, u)
		r.Items = append(r.Items, i)
		r.Values = append(r.Values, v)
	}
	return r
}

func protoEnv(name string, def float64) float64 {
	if s := os.Getenv(name); s != "" {
		v, _ := strconv.ParseFloat(s, 64)
		return v
	}
	return def
}

func TestProto(t *testing.T) {
	dir := os.Getenv("ML100K")
	if dir == "" {
		t.Skip()
	}
	fold := int(protoEnv("FOLD", 1))
	tr := readTab(t, fmt.Sprintf("%s/u%d.base", dir, fold))
	te := readTab(t, fmt.Sprintf("%s/u%d.test", dir, fold))
	if c := protoEnv("CORRUPT", 0); c > 0 {
		st := newStream()
		st.seed(99, 0, 0, 0)
		drop := map[int]bool{}
		oracle := protoEnv("ORACLE", 0)
		for _, k := range st.rng.Perm(len(tr.Values))[:int(math.Round(c*float64(len(tr.Values))))] {
			v := float64(1 + st.rng.IntN(5))
			if oracle == 1 || (oracle == 2 && math.Abs(v-tr.Values[k]) >= 2) {
				drop[k] = true
			}
			if oracle != 1 {
				tr.Values[k] = v
			}
		}
		if len(drop) > 0 {
			var keep []int
			for k := range tr.Values {
				if !drop[k] {
					keep = append(keep, k)
				}
			}
			tr = tr.subset(keep)
		}
	}
	uids, urow := newIDs(tr.Users)
	iids, icol := newIDs(tr.Items)
	tab := newTable(len(uids), len(iids), urow, icol, tr.Values)
	p := pairs{values: te.Values}
	for k := range te.Values {
		u, ok := uids.Index(te.Users[k])
		if !ok {
			u = -1
		}
		i, ok := iids.Index(te.Items[k])
		if !ok {
			i = -1
		}
		p.users = append(p.users, int32(u))
		p.items = append(p.items, int32(i))
	}
	k := int(protoEnv("RANK", 10))
	nu := protoEnv("NU", math.Inf(1))
	s := newSampler(tab, k, nu, uint64(protoEnv("SEED", 1)), int(protoEnv("WORKERS", 2)))
	if ms := int(protoEnv("MAPSTART", 0)); ms > 0 {
		s.noise = false
		s.lambda = protoEnv("LAMBDA", 0.1)
		for n := range ms {
			s.sweep(-1 - n)
		}
		s.noise = true
	}
	burns := []int{0, 5, 10, 20, 40, 80}
	sc := newScores(p, 1, 5, tab.mean, burns)
	start := time.Now()
	sweeps := int(protoEnv("SWEEPS", 100))
	_, err := run(context.Background(), s, chainSpec{sweeps: sweeps, val: sc, patience: 1 << 30, progress: func(n int, r float64) {
		if (n+1)%10 == 0 {
			var b []string
			for j := range burns {
				if sc.counts[j] > 0 {
					b = append(b, fmt.Sprintf("%d:%.4f", burns[j], sc.rmse(j)))
				}
			}
			fmt.Printf("%4d %.4f nu %.1f alpha %.3f %v %.1fs\n", n+1, r, s.nu, s.alpha, b, time.Since(start).Seconds())
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("%.2f ms/sweep\n", time.Since(start).Seconds()*1000/float64(sweeps))
}

func TestProtoFit(t *testing.T) {
	dir := os.Getenv("ML100K")
	if dir == "" {
		t.Skip()
	}
	var sum float64
	folds := []int{1, 2, 3, 4, 5}
	if f := int(protoEnv("FOLD", 0)); f > 0 {
		folds = []int{f}
	}
	for _, fold := range folds {
		tr := readTab(t, fmt.Sprintf("%s/u%d.base", dir, fold))
		te := readTab(t, fmt.Sprintf("%s/u%d.test", dir, fold))
		if c := protoEnv("CORRUPT", 0); c > 0 {
			st := newStream()
			st.seed(99, 0, 0, 0)
			for _, k := range st.rng.Perm(len(tr.Values))[:int(math.Round(c*float64(len(tr.Values))))] {
				tr.Values[k] = float64(1 + st.rng.IntN(5))
			}
		}
		start := time.Now()
		s := Settings{Seed: uint64(protoEnv("SEED", 1)), Rank: int(protoEnv("RANK", 0)), Sweeps: int(protoEnv("SWEEPS", 0)), Nu: protoEnv("NU", 0)}
		if os.Getenv("RIDGE") != "" {
			s.Method = Ridge
		}
		m, err := Fit(context.Background(), tr, s)
		if err != nil {
			t.Fatal(err)
		}
		e, _ := m.Evaluate(te)
		b, _ := Biases(tr, 15, 10)
		eb, _ := b.Evaluate(te)
		g, _ := GlobalMean(tr)
		eg, _ := g.Evaluate(te)
		sum += e.RMSE
		fmt.Printf("u%d rmse %.4f mae %.4f (biases %.4f mean %.4f) unseen %d rank %d(%d) sweeps %d noise %.3f %.1fs\n", fold, e.RMSE, e.MAE, eb.RMSE, eg.RMSE, e.Unseen, m.Info.Rank, m.Rank(), m.Info.Sweeps, m.Info.NoiseSD, time.Since(start).Seconds())
		for _, c := range m.Info.Selection.Candidates {
			fmt.Printf("   %+v\n", c)
		}
	}
	fmt.Printf("mean %.4f\n", sum/float64(len(folds)))
}

func TestProtoPost(t *testing.T) {
	dir := os.Getenv("ML100K")
	if dir == "" {
		t.Skip()
	}
	tr := readTab(t, dir+"/u1.base")
	te := readTab(t, dir+"/u1.test")
	uids, urow := newIDs(tr.Users)
	iids, icol := newIDs(tr.Items)
	tab := newTable(len(uids), len(iids), urow, icol, tr.Values)
	p := pairs{values: te.Values}
	for k := range te.Values {
		u, ok := uids.Index(te.Users[k])
		if !ok {
			u = -1
		}
		i, ok := iids.Index(te.Items[k])
		if !ok {
			i = -1
		}
		p.users = append(p.users, int32(u))
		p.items = append(p.items, int32(i))
	}
	k := int(protoEnv("RANK", 10))
	s := newSampler(tab, k, 6, 1, 2)
	sc := newScores(p, 1, 5, tab.mean, []int{0})
	mults := []int{1, 2, 3, 4}
	var posts []*posterior
	for _, m := range mults {
		posts = append(posts, newPosterior(tab.n1, tab.n2, k, m*k))
	}
	thin := newPosterior(tab.n1, tab.n2, k, 2*k)
	var tpost time.Duration
	for n := range 300 {
		s.sweep(n)
		sc.add(s, n)
		t0 := time.Now()
		for _, po := range posts {
			po.add(s)
		}
		if n%2 == 0 {
			thin.add(s)
		}
		tpost += time.Since(t0)
	}
	fmt.Printf("exact %.5f\n", sc.rmse(0))
	eval := func(po *posterior) float64 {
		ub, ib, l, r, kk := po.mean()
		var sq float64
		for e := range p.values {
			v := tab.mean
			u, i := p.users[e], p.items[e]
			if u >= 0 {
				v += ub[u]
			}
			if i >= 0 {
				v += ib[i]
			}
			if u >= 0 && i >= 0 {
				v += dot(l[int(u)*kk:int(u)*kk+kk], r[int(i)*kk:])
			}
			d := min(max(v, 1), 5) - p.values[e]
			sq += d * d
		}
		return math.Sqrt(sq / float64(len(p.values)))
	}
	for j, po := range posts {
		fmt.Printf("maxRank %dk: %.5f\n", mults[j], eval(po))
	}
	fmt.Printf("thin2 2k: %.5f  (time in posteriors %v)\n", eval(thin), tpost)
}

func TestProtoCurves(t *testing.T) {
	dir := os.Getenv("ML100K")
	if dir == "" {
		t.Skip()
	}
	tr := readTab(t, dir+"/u1.base")
	te := readTab(t, dir+"/u1.test")
	st := newStream()
	st.seed(1, 0, streamSplit, 0)
	perm := st.rng.Perm(tr.Len())
	nv := int(protoEnv("NV", 0.05) * float64(tr.Len()))
	val, fit := tr.subset(perm[:nv]), tr.subset(perm[nv:])
	uids, urow := newIDs(fit.Users)
	iids, icol := newIDs(fit.Items)
	tab := newTable(len(uids), len(iids), urow, icol, fit.Values)
	mk := func(r Ratings) pairs {
		p := pairs{values: r.Values}
		for k := range r.Values {
			u, ok := uids.Index(r.Users[k])
			if !ok {
				u = -1
			}
			i, ok := iids.Index(r.Items[k])
			if !ok {
				i = -1
			}
			p.users = append(p.users, int32(u))
			p.items = append(p.items, int32(i))
		}
		return p
	}
	for _, k := range []int{5, 10, 20} {
		s := newSampler(tab, k, 6, 1, 2)
		sv := newScores(mk(val), 1, 5, tab.mean, []int{0})
		stt := newScores(mk(te), 1, 5, tab.mean, []int{0})
		line := fmt.Sprintf("rank %2d:", k)
		for n := range 400 {
			s.sweep(n)
			v := sv.add(s, n)[0]
			tt := stt.add(s, n)[0]
			if (n+1)%50 == 0 {
				line += fmt.Sprintf(" %d:%.4f/%.4f", n+1, v, tt)
			}
		}
		fmt.Println(line)
	}
}
