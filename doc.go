// Package scaledsm recovers a low-rank matrix from linear measurements that carry bounded noise
// and a fraction of arbitrary outliers, y = A(X*) + w + s, by minimizing the least absolute
// deviations f(X) = ||A(X) - y||_1 over the factors of X = L Rᵀ (or X = L Lᵀ when X is positive
// semidefinite) with the scaled subgradient method of Tong, Ma and Chi, "Low-Rank Matrix Recovery
// with Scaled Subgradient Methods: Fast and Robust Convergence Without the Condition Number".
//
// What is measured is an [Operator] ([Sensing], [Quadratic]) with its observations, held in a
// [Problem]; how it is minimized is a [Method], a [Loss] and a [Step] rule, held in [Settings];
// what came out is a [Result]. [Solve] makes one fit, or with [AutoRank] finds the rank. Package
// completion holds the entry models (matrix completion and robust PCA) and their policy, which
// reach the core through a loss of their own and what their operator offers; package recommend fits
// ratings. The pieces, what goes beyond the paper, performance and conventions:
// docs/architecture.md.
package scaledsm
