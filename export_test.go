package scaledsm

// The unexported constants that the external tests name.
const DefaultPlateauWindow = defaultPlateauWindow

// The unexported functions that the external tests call.
var (
	AutoGap       = func(l Loss, z []float64) float64 { return autoGap(l, z, float64(len(z))) }
	EffectiveRank = effectiveRank
	// EvaluateBatch is the batched pass of the package's operators.
	EvaluateBatch = func(op Operator, es []*Evaluation) { op.(batchEvaluator).evaluateBatch(es) }
)
