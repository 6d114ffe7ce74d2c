package mem

import "testing"

func TestMake(t *testing.T) {
	for _, n := range []int{0, 1, 1000, 3 << 20} {
		s := Make[float32](n)
		if len(s) != n {
			t.Fatalf("Make(%d) has length %d", n, len(s))
		}
		for i := range s {
			if s[i] != 0 {
				t.Fatalf("Make(%d)[%d] = %v, want zero", n, i, s[i])
			}
			s[i] = float32(i)
		}
	}
	t.Setenv("SCALEDSM_HUGEPAGES", "0")
	if s := Make[float64](5 << 20); len(s) != 5<<20 {
		t.Fatal("Make without the advice")
	}
}
