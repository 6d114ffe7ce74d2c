package background

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMajorityFilter checks the mask against the majority of the hits
// over each pixel's window counted directly, the window cut at the edges,
// for several windows and both one and several workers.
func TestMajorityFilter(t *testing.T) {
	w, h := 37, 23
	rng := rand.New(rand.NewPCG(3, 4))
	for _, median := range []int{1, 3, 5, 7} {
		for _, workers := range []int{1, 3} {
			b, err := New(w, h*40, Settings{Median: median, Workers: workers, KeepHoles: true})
			if err != nil {
				t.Fatal(err)
			}
			b.width, b.height, b.n = w, h, w*h
			b.vari = make([]float32, w*h)
			for p := range b.vari {
				b.vari[p] = 1e-4
				b.resid[p] = 0
				if rng.IntN(3) == 0 {
					b.resid[p] = 0.5
				}
			}
			b.decide(nil, nil)
			half := median / 2
			for y := range h {
				for x := range w {
					n, area := 0, 0
					for yy := max(0, y-half); yy < min(h, y+half+1); yy++ {
						for xx := max(0, x-half); xx < min(w, x+half+1); xx++ {
							area++
							if b.resid[yy*w+xx] > 0 {
								n++
							}
						}
					}
					want := uint8(0)
					if 2*n > area {
						want = 255
					}
					if got := b.mask[y*w+x]; got != want {
						t.Fatalf("median %d, workers %d: pixel (%d, %d) is %d, want %d (%d hits of %d)", median, workers, x, y, got, want, n, area)
					}
				}
			}
		}
	}
}

// TestFillHoles checks the filled mask against a flood fill of the
// background from the frame's edge, on random masks of several densities.
func TestFillHoles(t *testing.T) {
	w, h := 41, 29
	rng := rand.New(rand.NewPCG(5, 6))
	b, err := New(w, h*40, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	b.width, b.height, b.n = w, h, w*h
	for trial := range 200 {
		density := []int{2, 3, 5}[trial%3]
		in := make([]uint8, w*h)
		for p := range in {
			if rng.IntN(density) != 0 {
				in[p] = 255
			}
		}
		copy(b.mask, in)
		b.fillHoles()
		// The background reached from the edge, four neighbours.
		reach := make([]bool, w*h)
		var stack []int
		for p := range in {
			x, y := p%w, p/w
			if in[p] == 0 && (x == 0 || y == 0 || x == w-1 || y == h-1) {
				reach[p] = true
				stack = append(stack, p)
			}
		}
		for len(stack) > 0 {
			p := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			x, y := p%w, p/w
			for _, q := range [][2]int{{x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}} {
				if q[0] >= 0 && q[0] < w && q[1] >= 0 && q[1] < h {
					if i := q[1]*w + q[0]; in[i] == 0 && !reach[i] {
						reach[i] = true
						stack = append(stack, i)
					}
				}
			}
		}
		filled := 0
		for p := range in {
			want := uint8(255)
			if reach[p] {
				want = 0
			}
			if b.mask[p] != want {
				t.Fatalf("trial %d: pixel (%d, %d) is %d, want %d", trial, p%w, p/w, b.mask[p], want)
			}
			if in[p] == 0 && want == 255 {
				filled++
			}
		}
		if trial < 3 && filled == 0 {
			t.Errorf("trial %d: no hole to fill: the test does not test", trial)
		}
	}
}

// TestMedian checks the median against a sort's, odd and even lengths.
func TestMedian(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for n := 1; n < 60; n++ {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(rng.IntN(10))
		}
		s := slices.Clone(v)
		slices.Sort(s)
		want := s[n/2]
		if n%2 == 0 {
			want = (s[n/2-1] + s[n/2]) / 2
		}
		if got := median(v); got != want {
			t.Fatalf("n %d: median %v, want %v", n, got, want)
		}
	}
}
