package scaledsm

import "github.com/scaledsm/scaledsm/internal/reduce"

// dist is the reductions of a run over the ranks of its Problem.Reducer
// (see reduce.Ranks); its zero value leaves every partial result as it is,
// the single-rank solve.
type dist = reduce.Ranks
