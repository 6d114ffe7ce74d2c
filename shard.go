package scaledsm

import "fmt"

// Shards of the operators, for data-parallel solves (see Reducer): a
// shard holds some of the measurements of a problem of total ones and
// scales as the whole problem does (the Gaussian operators by 1/total,
// Entries with the isometry factor n1·n2/total), so that the ranks' partial
// sums add up to the whole problem's.

// whole returns the measurements of the whole problem: total when set
// (a shard), m otherwise.
func whole(m, total int) int {
	if total > 0 {
		return total
	}
	return m
}

func checkShard(m, total int) error {
	if total < m {
		return fmt.Errorf("scaledsm: shard of %d measurements of a problem of %d: the whole must hold at least the shard", m, total)
	}
	return nil
}

// Shard returns the operator of these rows as a shard of a problem of total
// measurements: it scales by 1/total instead of 1/m. It shares the data.
func (s *Sensing) Shard(total int) (*Sensing, error) {
	if err := checkShard(s.m, total); err != nil {
		return nil, err
	}
	c := *s
	c.total = total
	return &c, nil
}

// scale returns the m of the operator's 1/m: the whole problem's.
func (s *Sensing) scale() float64 { return float64(whole(s.m, s.total)) }

// Shard returns the operator of these sampling vectors as a shard of a
// problem of total measurements: it scales by 1/total instead of 1/m. It
// shares the data.
func (q *Quadratic) Shard(total int) (*Quadratic, error) {
	if err := checkShard(q.m, total); err != nil {
		return nil, err
	}
	c := *q
	c.total = total
	return &c, nil
}

// scale returns the m of the operator's 1/m: the whole problem's.
func (q *Quadratic) scale() float64 { return float64(whole(q.m, q.total)) }

// Shard returns the operator of these entries as a shard of a problem of
// total observed entries, whose isometry factor is n1·n2/total. It shares
// the positions.
func (e *Entries) Shard(total int) (*Entries, error) {
	if err := checkShard(len(e.cols), total); err != nil {
		return nil, err
	}
	c := *e
	c.total = total
	return &c, nil
}

// ShardOf returns op, one of this package's operators, as the shard of a
// problem of total measurements (see Sensing.Shard and Quadratic.Shard).
func ShardOf(op Operator, total int) (Operator, error) {
	switch o := op.(type) {
	case *Sensing:
		return o.Shard(total)
	case *Quadratic:
		return o.Shard(total)
	}
	return nil, fmt.Errorf("scaledsm: operator %T cannot be a shard of a problem", op)
}
