// Package dataio reads and writes recovery problems as NumPy .npy files, so
// that data moves between scaledsm and Python without glue.
//
// [Load] reads a problem from files (an operator, the observations and,
// optionally, the truth) and returns a [scaledsm.Problem]. The files may
// hold float64 or float32 values, in C or Fortran order, in .npy format
// version 1.0, 2.0 or 3.0; each is streamed into a single slice, converted
// on the way (a float32 sensing file into float32 storage, everything else
// into float64), so a problem read from files occupies its size in memory
// and no more. Errors name the file and the reason.
//
// For matrix completion and robust PCA, [LoadEntries] reads COO triplets
// (indices of any NumPy integer type, checked against the shape; float
// values), [ReadRatings] a ratings CSV file in the MovieLens layout, with
// the ids mapped to indices ([ReadRatings32] with float32 values, as a
// recommender holds them), and [ReadMasked] a dense matrix with NaN for
// the missing entries; [ReadInts] reads an integer array, [ReadPairs] the
// (row, column) pairs of a prediction, and [WriteInt32] and [WriteInt64]
// write integer arrays.
//
// [ReadHeader] and [ReadData] are the streaming reader underneath, and
// [ReadFile] reads one array. [WriteArray], [WriteFloat64], [WriteFloat32] and
// [WriteBool] write arrays as NumPy does (format 1.0, data aligned to 64
// bytes), in chunks, without copying.
//
// The format is specified in NumPy's numpy.lib.format module: the magic
// string \x93NUMPY, a major and minor version byte, the header length
// (2 bytes little endian in version 1.0, 4 in 2.0 and 3.0), then the header,
// a Python dictionary literal with the keys 'descr' (the dtype, such as
// '<f8'), 'fortran_order' and 'shape', padded with spaces and ended by a
// newline; the data follows.
package dataio
