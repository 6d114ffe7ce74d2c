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
//   - the sweeps move each user's row [L_u, b_u] one coordinate at a time,
//     each from its scalar conditional given the rest, with the residuals
//     of the user's ratings kept as the row changes: O(k) a rating, where
//     the row's joint update costs a (k+1)² Gram a rating and a solve;
//     then each item's;
//   - the loss is robust: a Student-t likelihood (Settings.Nu, 6 by
//     default) weighs each rating by how well the fit explains it, so a
//     careless or fake rating pulls less;
//   - the regularization is learned: the sweeps sample the posterior of a
//     Bayesian model (a Normal-Wishart prior on the rows, as Salakhutdinov
//     and Mnih's Bayesian PMF), and the predictions are averaged over the
//     sweeps, which predicts better than any one penalized fit;
//   - the rank and the number of sweeps are chosen in one chain, on 5% of
//     the ratings held out (Settings.Validation): the chain starts at rank
//     Ranks[0] from the ratings' leading singular vectors, and grows its
//     rank in place while the held-out RMSE says so; then it goes on with
//     all the ratings (no sweep made twice).
//
// FitIndexed fits ratings in a compact form (Indexed, 12 bytes a rating
// as a reader gives them) without copying them; LayOut and FitTable split
// it in two, so that the ratings read can be let go once the fit's table
// is made, and Table.Biases gives the baselines from that table, with no
// table of their own. On the ranks of an MPI job (Settings.Reducer), each
// rank gives its part of the ratings and holds only its share.
//
// Method Ridge is the same model by penalized least squares (ALS-WR, the
// penalty chosen by validation); GlobalMean and Biases are the baselines
// a recommender must beat. Models are saved with Save as NumPy .npy files
// and a model.json, which NumPy reads as they are, and read back by Load.
//
// On MovieLens 100k's five splits u1..u5, the default predicts with test
// RMSE 0.8994 on average (0.9068 on u1), where the biases give 0.9457,
// tuned ALS-WR 0.9134 and LIBMF 0.9103 (scaledsm experiment movielens);
// see docs/recommend.md for the measurements and the times, and for 10^6
// to 10^8 ratings against LIBMF.
package recommend
