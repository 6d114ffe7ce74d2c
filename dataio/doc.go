// Package dataio reads and writes recovery problems as NumPy .npy files
// (format 1.0, 2.0 or 3.0 of numpy.lib.format), so that data moves between
// scaledsm and Python without glue.
//
// [Load] reads a problem (an operator, the observations and, optionally,
// the truth) into a [scaledsm.Problem]. Its files may hold float64 or
// float32, in C or Fortran order; each is streamed into the one slice that
// keeps it, so a problem occupies its size in memory and no more. Errors
// name the file and the reason. [LoadEntries] (COO triplets), [ReadRatings]
// (a MovieLens-layout CSV) and [ReadMasked] (a dense matrix, NaN where
// missing) read completion data. [ReadHeader] and [ReadData] are the
// streaming reader underneath; [WriteArray] writes arrays as NumPy does.
package dataio
