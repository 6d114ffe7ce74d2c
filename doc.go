// Package scaledsm recovers a low-rank matrix from linear measurements that
// carry bounded noise and a fraction of arbitrary outliers,
//
//	y = A(X*) + w + s,
//
// by minimizing the least absolute deviations f(X) = ||A(X) - y||_1 over the
// factors of X = L Rᵀ (or X = L Lᵀ when X is positive semidefinite) with the
// scaled subgradient method of Tong, Ma and Chi, "Low-Rank Matrix Recovery
// with Scaled Subgradient Methods: Fast and Robust Convergence Without the
// Condition Number".
//
// The pieces are kept apart, as in gonum's optimize package:
//   - what is measured: an [Operator] ([Sensing] for dense Gaussian matrix
//     sensing, [Quadratic] for quadratic sampling, [Entries] for matrix
//     completion and robust PCA, which observe some or all entries of X)
//     and the observations, held in a [Problem];
//   - how it is minimized: a [Method] ([ScaledSM], [VanillaSM], and the smooth
//     baselines [ScaledGD], [GD]), a [Loss] ([L1], [L2], [L2Squared]) and a
//     [Step] rule ([Polyak], which needs f(X*); [Auto], which needs nothing;
//     [Geometric]; [Constant]), held in [Settings];
//   - where it starts: [Spectral], the truncated spectral initialization,
//     which drops a known fraction of the largest observations or, with
//     [MedianTrim], those above three times their median; or [Random], small
//     Gaussian factors;
//   - what came out: a [Result] with the factors, a per-iteration trace, a
//     typed [Status], and the singular values and effective rank of L Rᵀ.
//
// Beyond the paper, the rank may be over-specified or unknown: the scaled
// methods damp their preconditioner, (RᵀR + λ_t I)^{-1} with λ_t fading as
// the fit becomes exact ([Damping]), so that spare columns do not slow them;
// [SupportedRank] says how large a rank the measurements support, and
// [AutoRank] finds the rank from the singular values of an over-specified
// fit.
//
// Matrix completion and robust PCA. [NewEntries] holds observed entries
// (COO triplets, stored by row); [DefaultSettings] gives the entry models
// ScaledGD on [TrimmedL2], least squares without the residuals far beyond
// their row's and column's, which recovers X exactly through a fraction of
// gross outliers where the l1 loss with one global step converges slowly.
// On data that no rank fits exactly (images, video with moving objects,
// ratings) its [AutoRidge] chooses a ridge penalty ([Settings].Ridge, the
// nuclear norm at balanced factors), a harder trimming and the number of
// iterations on entries held out ([ChooseRidge]), so that a larger rank
// does not give a worse fit; before that, a fit that is not exact is
// made again from the spectral start truncated harder (the largest 40% of |y|
// dropped) and, on a
// small matrix, from the convex relaxation's estimate ([ConvexStart]),
// which some draws with outliers need, and kept if it is exact.
//
// Ratings. Package recommend fits a recommender to ratings: a global mean,
// user and item biases and low-rank factors, by scaled sweeps with a
// preconditioner per row, a Student-t likelihood and posterior averaging,
// with the rank chosen on held-out ratings; it beats ALS-WR on MovieLens.
//
// The synthetic data recipe of the paper's Section 4 (and synthetic
// ratings) lives in package synth; package dataio reads problems from NumPy
// .npy files and ratings files, and writes them.
//
// Performance. An operator's Evaluate makes one pass over its data per
// iteration (residuals, weights and adjoint together), on every core, with
// vector kernels chosen for the CPU (or the portable ones, with the
// environment variable SCALEDSM_KERNEL=generic). Every pass adds the rows
// in an order fixed by the number of measurements alone, so a run gives the
// same bits whatever GOMAXPROCS is. Matrix sensing data may be held as
// float32 ([NewSensing32]) at half the memory, the arithmetic staying
// float64. [SolveBatch] advances runs that share an operator together, one
// pass over the data per iteration for all of them (a [BatchEvaluator]),
// each run getting the bits it gets alone.
//
// Conventions. Both operators scale by 1/m: matrix sensing measures
// A_i(X) = <A_i, X>/m and quadratic sampling A_i(X) = a_iᵀ X a_i / m, as in
// the paper. Loss values are reported in that convention; Polyak and
// geometric steps do not depend on it. For the PSD factorization X = L Lᵀ
// the factor subgradient is that of L -> f(L Lᵀ), namely 2 S L with
// S = A*(sign(A(X) - y)); with it, Polyak steps for the PSD form coincide
// with the asymmetric method run from L = R.
package scaledsm
