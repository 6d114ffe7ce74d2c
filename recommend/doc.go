// Package recommend predicts ratings: a recommender of the kind that
// MovieLens, Netflix or a shop's reviews call for, built on the scaled
// methods of package scaledsm.
//
// A Model predicts the rating of item i by user u as
//
//	clip(mean + b_u + c_i + L_u · R_i, min, max)
//
// with a global mean, a bias per user and per item, and low-rank factors;
// the scale [min, max] is that of the training ratings. A user or an item
// the training ratings did not have gets the biases it has (the mean at
// worst), never an error.
//
// Fit fits a Model with no setting required:
//   - the sweeps are scaled steps with a preconditioner per row: each
//     user's row [L_u, b_u] moves by H_u⁻¹ times the gradient of the loss,
//     H_u the row's Hessian (the (RᵀR)⁻¹ of ScaledSM restricted to the
//     items the user rated, plus the regularization), then each item's;
//   - the loss is robust: a Student-t likelihood (Settings.Nu, 6 by
//     default) weighs each rating by how well the fit explains it, so a
//     careless or fake rating pulls less;
//   - the regularization is learned: the sweeps sample the posterior of a
//     Bayesian model (a Normal-Wishart prior on the rows, as Salakhutdinov
//     and Mnih's Bayesian PMF), and the predictions are averaged over the
//     sweeps, which predicts better than any one penalized fit;
//   - the rank and the number of sweeps are chosen on 5% of the ratings
//     held out (Settings.Validation): chains of rank 5, 10, 20, ... each
//     stop when the held-out RMSE stops improving, and the best chain is
//     continued on all the ratings (not refitted from scratch).
//
// Method Ridge is the same model by penalized least squares (ALS-WR, the
// penalty chosen by validation); GlobalMean and Biases are the baselines
// a recommender must beat. Models are saved with Save as NumPy .npy files
// and a model.json, which NumPy reads as they are, and read back by Load.
//
// On MovieLens 100k's five splits u1..u5, the default predicts with test
// RMSE 0.8995 on average (0.907 on u1) in 2 s a split or less, where the
// biases give 0.946 and tuned ALS-WR 0.914; see docs/recommend.md for the
// measurements, and for 10^6 to 10^8 ratings against LIBMF.
package recommend
