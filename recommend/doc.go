// Package recommend predicts ratings with the scaled methods of package
// scaledsm. A Model predicts user u's rating of item i as
//
//	clip(mean + b_u + c_i + L_u · R_i, min, max)
//
// on the training ratings' scale; a user or an item they lack gets the
// biases it has, never an error. Fit needs no setting: coordinate sweeps
// sample a Bayesian posterior (Student-t likelihood, learned Normal-Wishart
// prior) and average its predictions, one chain on held-out ratings
// choosing the rank and the sweeps. FitIndexed and FitTable fit compact
// tables (an MPI rank's share with Settings.Reducer); Ridge, GlobalMean and
// Biases are baselines; Save and Load use .npy files. See docs/recommend.md.
package recommend
