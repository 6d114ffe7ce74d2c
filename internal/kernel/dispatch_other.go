//go:build !amd64 || purego

package kernel

import "errors"

func supported(impl int) error {
	if impl == implGeneric {
		return nil
	}
	return errors.New("this build has only the generic code (purego build tag or a GOARCH other than amd64)")
}

func dotRows(_ int, out []float64, a []float64, stride, n int, x []float64) {
	dotRowsGeneric(out, a, stride, n, x)
}

func dotRows32(_ int, out []float64, a []float32, stride, n int, x []float64) {
	dotRowsGeneric(out, a, stride, n, x)
}

func axpyRows(_ int, y, alpha []float64, a []float64, stride, n int) {
	axpyRowsGeneric(y, alpha, a, stride, n)
}

func axpyRows32(_ int, y, alpha []float64, a []float32, stride, n int) {
	axpyRowsGeneric(y, alpha, a, stride, n)
}

func dotAxpyRows(_ int, out []float64, a64 []float64, a32 []float32, y, alpha []float64, b64 []float64, b32 []float32, stride, n int, x []float64) {
	dotAxpyRowsGeneric(out, a64, a32, y, alpha, b64, b32, stride, n, x)
}

func dotBatch(_ int, out []float64, ldo int, a64 []float64, a32 []float32, lda, rows, n int, x []float64, ldx, runs int) {
	dotBatchGeneric(out, ldo, a64, a32, lda, rows, n, x, ldx, runs)
}

func axpyBatch(_ int, s []float64, lds int, w []float64, ldw int, a64 []float64, a32 []float32, lda, rows, n, runs int) {
	axpyBatchGeneric(s, lds, w, ldw, a64, a32, lda, rows, n, runs)
}

// streamSum is the streaming-read floor of the benchmarks.
func streamSum(a []float64, _ int) float64 { return sumGeneric(a) }

func streamSum32(a []float32, _ int) float64 { return sumGeneric(a) }

func multiplyAdds(rounds int) float64 { return multiplyAddsGeneric(rounds) }

func entriesAsm(_, _ int, _ *entriesArgs) bool { return false }

func gather(_ int, g *GatherRow) { gatherGeneric(g, 0) }

func dot1(_ int, a, x []float64) float64 {
	var out [1]float64
	dotRowsGeneric(out[:], a, len(a), len(a), x)
	return out[0]
}

func coordSums(_ int, res, w, zp, z []float64, delta float64) (float64, float64) {
	return coordSumsGeneric(res, w, zp, z, delta, 0, 0, 0)
}

func coordMoves(impl int, m *Moves) float64 { return coordMovesGeneric(impl, m) }

func gramTile(_ int, acc *[32]float64, x []float64, stride, nr, i, j int) {
	gramTileGeneric(acc, x, stride, nr, i, j)
}

func axpyGather(_ int, y, alpha []float64, idx []int32, a []float64, l int) {
	axpyGatherGeneric(y, alpha, idx, a, l)
}

func axpyScatter(_ int, y, alpha []float64, idx []int32, x []float64, l int) {
	axpyScatterGeneric(y, alpha, idx, x, l)
}
