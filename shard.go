package scaledsm

import (
	"fmt"

	"github.com/scaledsm/scaledsm/internal/reduce"
)

// Shards of the operators, for data-parallel solves (see Reducer): a
// shard holds some of the measurements of a problem of total ones and
// scales as the whole problem does (the Gaussian operators by 1/total,
// Entries with the isometry factor n1·n2/total), so that the ranks' partial
// sums add up to the whole problem's.

// shard returns the operator of these rows as a shard of a problem of total
// measurements: it scales by 1/total instead of 1/m. It shares the data.
func (s *Sensing) shard(total int) (*Sensing, error) {
	if err := reduce.CheckShard(s.m, total); err != nil {
		return nil, err
	}
	c := *s
	c.total = total
	return &c, nil
}

// scale returns the m of the operator's 1/m: the whole problem's.
func (s *Sensing) scale() float64 { return float64(reduce.Whole(s.m, s.total)) }

// shard returns the operator of these sampling vectors as a shard of a
// problem of total measurements: it scales by 1/total instead of 1/m. It
// shares the data.
func (q *Quadratic) shard(total int) (*Quadratic, error) {
	if err := reduce.CheckShard(q.m, total); err != nil {
		return nil, err
	}
	c := *q
	c.total = total
	return &c, nil
}

// scale returns the m of the operator's 1/m: the whole problem's.
func (q *Quadratic) scale() float64 { return float64(reduce.Whole(q.m, q.total)) }

// ShardOf returns op, one of this package's operators, as the shard of a
// problem of total measurements: it scales as the whole problem does.
func ShardOf(op Operator, total int) (Operator, error) {
	switch o := op.(type) {
	case *Sensing:
		return o.shard(total)
	case *Quadratic:
		return o.shard(total)
	}
	return nil, fmt.Errorf("scaledsm: operator %T cannot be a shard of a problem", op)
}
