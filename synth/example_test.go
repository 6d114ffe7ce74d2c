package synth_test

import (
	"fmt"
	"math"

	"github.com/scaledsm/scaledsm/synth"
)

// One draw serves several settings: the instances share the operator, the
// truth's singular vectors and the outliers' support, signs and magnitudes,
// so they differ only by the condition number, the outlier fraction and the
// noise level (here: none, math.Inf(1) dB).
func ExampleNew() {
	draw, err := synth.New(synth.Config{Kind: synth.Sensing, N1: 20, Rank: 2, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ps := range []float64{0.1, 0.2} {
		in, err := draw.Instance(synth.Setting{Kappa: 5, PS: ps, SNR: math.Inf(1)})
		if err != nil {
			fmt.Println(err)
			return
		}
		outliers := 0
		for _, c := range in.Corrupted() {
			if c {
				outliers++
			}
		}
		m, n1, n2 := in.Op.Dims()
		fmt.Printf("p_s=%g: m=%d measurements of a %dx%d matrix, singular values %v, %d outliers, f(X*) = %.4g\n",
			ps, m, n1, n2, in.Sigma, outliers, in.FStar)
	}
	// Output:
	// p_s=0.1: m=320 measurements of a 20x20 matrix, singular values [5 1], 36 outliers, f(X*) = 10.05
	// p_s=0.2: m=320 measurements of a 20x20 matrix, singular values [5 1], 67 outliers, f(X*) = 19.57
}
