package synth_test

import (
	"errors"
	"math"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/synth"
)

func draw(t *testing.T, c synth.Config) *synth.Draw {
	t.Helper()
	d, err := synth.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func inst(t *testing.T, d *synth.Draw, s synth.Setting) *synth.Instance {
	t.Helper()
	in, err := d.Instance(s)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func TestRecipe(t *testing.T) {
	for _, c := range []synth.Config{
		{Kind: synth.Sensing, N1: 15, N2: 9, Rank: 3, Seed: 1},
		{Kind: synth.Quadratic, N1: 20, Rank: 4, Seed: 2},
	} {
		d := draw(t, c)
		if d.M != 4*(c.N1+d.N2)*c.Rank {
			t.Errorf("%v: m = %d, want 4(n1+n2)r", c.Kind, d.M)
		}
		s := synth.Setting{Kappa: 7, PS: 0.2, SNR: 40}
		in := inst(t, d, s)

		// Singular values evenly spaced from κ to 1, orthonormal vectors.
		var svd mat.SVD
		if !svd.Factorize(in.Truth, mat.SVDNone) {
			t.Fatal("SVD failed")
		}
		vals := svd.Values(nil)
		for k := range c.Rank {
			want := 7 - 6*float64(k)/float64(c.Rank-1)
			if math.Abs(vals[k]-want) > 1e-12*want || math.Abs(in.Sigma[k]-want) > 1e-15 {
				t.Errorf("%v: σ_%d = %g, want %g", c.Kind, k, vals[k], want)
			}
		}
		if len(vals) > c.Rank && vals[c.Rank] > 1e-12 {
			t.Errorf("%v: rank exceeds %d: σ_%d = %g", c.Kind, c.Rank, c.Rank, vals[c.Rank])
		}
		var utu mat.Dense
		utu.Mul(d.U.T(), d.U)
		for i := range c.Rank {
			for j := range c.Rank {
				if want := map[bool]float64{true: 1, false: 0}[i == j]; math.Abs(utu.At(i, j)-want) > 1e-12 {
					t.Fatalf("%v: UᵀU[%d,%d] = %g", c.Kind, i, j, utu.At(i, j))
				}
			}
		}

		// Observations, noise level and outliers as the recipe says.
		var l1, linf, fstar float64
		for _, v := range in.Clean {
			l1 += math.Abs(v)
			linf = math.Max(linf, math.Abs(v))
		}
		sigmaW := l1 / 100 // 40 dB
		corrupted := 0
		var maxNoise float64
		for i := range in.Y {
			maxNoise = math.Max(maxNoise, math.Abs(in.Noise[i]))
			if math.Abs(in.Outlier[i]) > 10*linf {
				t.Fatalf("%v: outlier %g beyond 10||A(X*)||_inf = %g", c.Kind, in.Outlier[i], 10*linf)
			}
			if in.Outlier[i] != 0 {
				corrupted++
			}
			if in.Y[i] != in.Clean[i]+in.Outlier[i]+in.Noise[i] {
				t.Fatalf("%v: y_%d is not A(X*) + w + s", c.Kind, i)
			}
			fstar += math.Abs(in.Noise[i] + in.Outlier[i])
		}
		if bound := sigmaW / float64(d.M); maxNoise > bound || maxNoise < 0.9*bound {
			t.Errorf("%v: max |w_i| = %g, want just under σ_w/m = %g", c.Kind, maxNoise, bound)
		}
		if math.Abs(fstar-in.FStar) > 1e-12*fstar {
			t.Errorf("%v: FStar = %g, want ||w+s||_1 = %g", c.Kind, in.FStar, fstar)
		}
		mean, sd := 0.2*float64(d.M), math.Sqrt(0.2*0.8*float64(d.M))
		if math.Abs(float64(corrupted)-mean) > 4*sd {
			t.Errorf("%v: %d corrupted of %d, want about %g", c.Kind, corrupted, d.M, mean)
		}
		// A(X*) is the operator applied to the truth.
		want := make([]float64, d.M)
		d.Op.Apply(want, in.Truth)
		for i := range want {
			if want[i] != in.Clean[i] {
				t.Fatalf("%v: Clean[%d] is not A(X*)", c.Kind, i)
			}
		}
	}
}

// TestInstancesShareTheDraw checks that instances differ only by their
// setting: same operator, nested outlier supports with the same signs,
// noise proportional across SNRs.
func TestInstancesShareTheDraw(t *testing.T) {
	d := draw(t, synth.Config{Kind: synth.Sensing, N1: 10, Rank: 2, Seed: 3})
	a := inst(t, d, synth.Setting{Kappa: 1, PS: 0.1, SNR: 40})
	b := inst(t, d, synth.Setting{Kappa: 1, PS: 0.3, SNR: 60})
	if a.Op != b.Op {
		t.Error("instances of one draw have different operators")
	}
	scale := b.Noise[0] / a.Noise[0]
	for i := range a.Y {
		if a.Outlier[i] != 0 && a.Outlier[i] != b.Outlier[i] {
			t.Fatalf("outlier %d: %g at p_s=0.1 but %g at p_s=0.3", i, a.Outlier[i], b.Outlier[i])
		}
		if math.Abs(b.Noise[i]-scale*a.Noise[i]) > 1e-12*math.Abs(b.Noise[i])+1e-300 {
			t.Fatalf("noise %d is not the same draw rescaled", i)
		}
	}
	if math.Abs(scale-0.1) > 1e-12 {
		t.Errorf("20 dB more SNR scales the noise by %g, want 0.1", scale)
	}
	c := inst(t, d, synth.Setting{Kappa: 9, SNR: math.Inf(1)})
	for i := range c.Noise {
		if c.Noise[i] != 0 || c.Outlier[i] != 0 {
			t.Fatal("SNR = +Inf and p_s = 0 should give clean observations")
		}
	}
}

func TestSeedsAndCores(t *testing.T) {
	c := synth.Config{Kind: synth.Sensing, N1: 8, N2: 6, Rank: 2, Seed: 4}
	gen := func(procs int, seed uint64) *synth.Instance {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		c := c
		c.Seed = seed
		return inst(t, draw(t, c), synth.Setting{Kappa: 3, PS: 0.2, SNR: 50})
	}
	a, b, other := gen(1, 4), gen(4, 4), gen(2, 5)
	same, differ := true, false
	for i := range a.Y {
		same = same && a.Y[i] == b.Y[i]
		differ = differ || a.Y[i] != other.Y[i]
	}
	ad := a.Op.(*scaledsm.Sensing).Data()
	bd := b.Op.(*scaledsm.Sensing).Data()
	for i := range ad {
		same = same && ad[i] == bd[i]
	}
	if !same {
		t.Error("the same seed gives different bits with 1 and 4 cores")
	}
	if !differ {
		t.Error("seeds 4 and 5 give the same observations")
	}
}

func TestRejects(t *testing.T) {
	for _, c := range []synth.Config{
		{Kind: 7, N1: 5, Rank: 1},
		{Kind: synth.Sensing, N1: 0, Rank: 1},
		{Kind: synth.Sensing, N1: 5, N2: -1, Rank: 1},
		{Kind: synth.Quadratic, N1: 5, N2: 6, Rank: 1},
		{Kind: synth.Sensing, N1: 5, Rank: 0},
		{Kind: synth.Sensing, N1: 5, N2: 3, Rank: 4},
		{Kind: synth.Sensing, N1: 5, Rank: 1, M: -2},
		{Kind: synth.Sensing, N1: 5, Rank: 1, Precision: 2},
		{Kind: synth.Sensing, N1: 2, N2: math.MaxInt64, Rank: 1},       // 4(n1+n2)r overflowed, and a draw panicked
		{Kind: synth.Quadratic, N1: 1 << 62, Rank: 1},                  // as did n1·n2
		{Kind: synth.Sensing, N1: 100000, Rank: 1},                     // the default m's sensing matrices do not fit
		{Kind: synth.Completion, N1: math.MaxInt64, Rank: 1, P: 1e-30}, // beyond int32 indices
	} {
		_, err := synth.New(c)
		var ie *scaledsm.InputError
		if !errors.As(err, &ie) {
			t.Errorf("%+v: error %v, want an *InputError naming the field", c, err)
		}
	}
	d := draw(t, synth.Config{Kind: synth.Quadratic, N1: 5, Rank: 1})
	for _, s := range []synth.Setting{
		{Kappa: 0.9, SNR: math.Inf(1)},
		{Kappa: math.Inf(1), SNR: math.Inf(1)},
		{Kappa: 1, PS: 0.5, SNR: math.Inf(1)},
		{Kappa: 1, PS: -0.01, SNR: math.Inf(1)},
		{Kappa: 1, SNR: math.NaN()},
		{Kappa: 1e308, SNR: math.Inf(1)}, // finite, and X* of NaNs
	} {
		_, err := d.Instance(s)
		var ie *scaledsm.InputError
		if !errors.As(err, &ie) {
			t.Errorf("%+v: error %v, want an *InputError naming the field", s, err)
		}
	}
}

// TestFloat32 checks float32 storage: each stored value is the rounding of
// the float64 draw, and the observations are computed from the stored
// values, with the bits a float64 operator holding them gives.
func TestFloat32(t *testing.T) {
	c := synth.Config{Kind: synth.Sensing, N1: 9, N2: 7, Rank: 2, Seed: 6}
	d64 := draw(t, c)
	c.Precision = synth.Float32
	d32 := draw(t, c)
	a64 := d64.Op.(*scaledsm.Sensing).Data()
	a32 := d32.Op.(*scaledsm.Sensing).Data32()
	if len(a32) != len(a64) || d32.Op.(*scaledsm.Sensing).Data() != nil {
		t.Fatalf("float32 draw stores %d float32 values (want %d) and %d float64 values (want none)",
			len(a32), len(a64), len(d32.Op.(*scaledsm.Sensing).Data()))
	}
	rounded := make([]float64, len(a64))
	exact := 0
	for i, v := range a32 {
		if v != float32(a64[i]) {
			t.Fatalf("value %d: %v, want the rounding of %v", i, v, a64[i])
		}
		rounded[i] = float64(v)
		if rounded[i] == a64[i] {
			exact++
		}
	}
	if exact > len(a64)/100 {
		t.Errorf("%d of %d float64 draws are float32 values: the float64 draw is not at full precision", exact, len(a64))
	}
	op, err := scaledsm.NewSensing(d64.M, 9, 7, rounded)
	if err != nil {
		t.Fatal(err)
	}
	s := synth.Setting{Kappa: 4, PS: 0.2, SNR: math.Inf(1)}
	in := inst(t, d32, s)
	want := make([]float64, d64.M)
	op.Apply(want, in.Truth)
	for i := range want {
		if want[i] != in.Clean[i] {
			t.Fatalf("A(X*)_%d = %v from the float32 storage, %v from float64 storage of the same values", i, in.Clean[i], want[i])
		}
	}
	// Quadratic sampling rounds its data to float32 values, kept as float64,
	// before the observations are computed.
	q := synth.Config{Kind: synth.Quadratic, N1: 9, Rank: 2, Seed: 6}
	q64 := draw(t, q).Op.(*scaledsm.Quadratic).Data()
	q.Precision = synth.Float32
	dq := draw(t, q)
	for i, v := range dq.Op.(*scaledsm.Quadratic).Data() {
		if v != float64(float32(q64[i])) {
			t.Fatalf("quadratic value %d: %v, want the rounding of %v", i, v, q64[i])
		}
	}
	qop, err := scaledsm.NewQuadratic(dq.M, 9, append([]float64(nil), dq.Op.(*scaledsm.Quadratic).Data()...))
	if err != nil {
		t.Fatal(err)
	}
	qin := inst(t, dq, s)
	want = make([]float64, dq.M)
	qop.Apply(want, qin.Truth)
	for i := range want {
		if want[i] != qin.Clean[i] {
			t.Fatalf("quadratic A(X*)_%d = %v, %v from an operator of the rounded values", i, qin.Clean[i], want[i])
		}
	}
	if synth.Float32.String() != "f32" {
		t.Errorf("Float32 prints as %q", synth.Float32)
	}
	for _, name := range []string{"f32", "f64"} {
		if p, err := synth.ParsePrecision(name); err != nil || p.String() != name {
			t.Errorf("ParsePrecision(%q) = %v, %v", name, p, err)
		}
	}
	if _, err := synth.ParsePrecision("float16"); err == nil {
		t.Error("ParsePrecision accepts float16")
	}
}

// TestEntriesFloat32: an entry model drawn at Float32 holds its
// observations as float32 alone (Instance.Y32, no Y), each the rounding of
// the Float64 draw's, the same entries and outliers, with f(X*) counting
// the rounding; the problem carries them as Y32.
func TestEntriesFloat32(t *testing.T) {
	for _, kind := range []synth.Kind{synth.Completion, synth.RobustPCA} {
		c := synth.Config{Kind: kind, N1: 40, N2: 30, Rank: 2, P: 0.3, Seed: 4}
		if kind == synth.RobustPCA {
			c.P = 0
		}
		s := synth.Setting{Kappa: 3, PS: 0.1, SNR: math.Inf(1)}
		in64 := inst(t, draw(t, c), s)
		c.Precision = synth.Float32
		in32 := inst(t, draw(t, c), s)
		if in32.Y != nil || len(in32.Y32) != len(in64.Y) {
			t.Fatalf("%v: %d float64 and %d float32 observations, want none and %d", kind, len(in32.Y), len(in32.Y32), len(in64.Y))
		}
		if p := in32.Problem(); p.Y != nil || len(p.Y32) != len(in64.Y) {
			t.Fatalf("%v: the problem's observations are not its Y32", kind)
		}
		var fStar float64
		for k, v := range in32.Y32 {
			if v != float32(in64.Y[k]) {
				t.Fatalf("%v: observation %d %v, want the rounding of %v", kind, k, v, in64.Y[k])
			}
			fStar += math.Abs(float64(v) - in64.Y[k])
		}
		if in32.Outliers != in64.Outliers || !slices.Equal(in32.Corrupted(), in64.Corrupted()) {
			t.Errorf("%v: %d outliers at float32, %d at float64", kind, in32.Outliers, in64.Outliers)
		}
		// f(X*) = Σ|y - x*|: the outliers' and the rounding's.
		if d := math.Abs(in32.FStar - in64.FStar); d > fStar+1e-9*in64.FStar || d == 0 && fStar > 0 {
			t.Errorf("%v: f(X*) %v at float32, %v at float64, rounding %v", kind, in32.FStar, in64.FStar, fStar)
		}
	}
}
