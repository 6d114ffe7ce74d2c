package completion

import (
	"context"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/inputerr"
)

// solve is Solve within the pipeline pl: one fit, unless the problem asks for a choice
// (Problem.Rank = AutoRank, Settings.Ridge = AutoRidge); then these stages run, each in its file:
//
//  1. the rank: validation on entries held out (chooseRank, rankchoice.go), or for other
//     operators and on ranks an over-specified fit (scaledsm.AutoRank);
//  2. the first fit, unpenalized, from the settings' start (fit, fitlog.go);
//  3. the other starts, when that fit is not exact (restart, restart.go);
//  4. the judgement: exact, stopped too soon to tell, or neither (needsPenalty, ridge.go);
//  5. for neither, the penalty, trimming floor and iterations by validation (chooseRidge), and the
//     final fit with them (penalize, ridge.go); with the rank chosen too, the largest rank the
//     entries support is fitted instead, through stages 2-5 with its own penalty;
//  6. robust PCA not fitted exactly: the polish (polish, polish.go), kept while Σ|y - x| falls; it
//     runs first, on the unpenalized fit (polishFirst); stage 5 and a second polish if not exact.
//
// A new stage goes here, in its place, with its mechanism in a file of its own.
func (pl pipeline) solve(ctx context.Context, p scaledsm.Problem, s Settings) (*Result, error) {
	autoRank, autoRidge := p.Rank == scaledsm.AutoRank, s.Ridge == AutoRidge
	if !autoRank && !autoRidge {
		return pl.fit(ctx, p, s)
	}
	if autoRank && p.Op == nil {
		return nil, inputerr.New("operator", nil, "the problem has none")
	}
	if err := s.resolve(); err != nil {
		return nil, err
	}
	// 1. The rank.
	var choice *RankChoice
	if autoRank {
		if _, ok := p.Op.(*Entries); !ok || p.Reducer != nil {
			one := s.Settings
			one.Ridge = max(one.Ridge, 0)
			return pl.evaluate(ctx, p, one)
		}
		c, err := pl.chooseRank(ctx, p, s, 0)
		if err != nil {
			return nil, err
		}
		p.Rank, choice = c.Rank, &c
	}
	if autoRidge {
		s.Ridge = 0
		if !autoRank && s.Init == nil && s.Start == scaledsm.ConvexStart {
			// Once, for the first fit and the penalized refit
			// (chooseRidge starts its fits from the training entries'
			// own).
			init, err := scaledsm.Initial(ctx, p, s.Settings)
			if err != nil {
				return nil, err
			}
			s.Init = &init
		}
	}
	// 2. The first fit, and 3. the other starts.
	res, err := pl.fit(ctx, p, s)
	if err == nil && autoRidge {
		res, err = pl.restart(ctx, p, s, res, true)
	}
	if err != nil {
		return nil, err
	}
	// 4. The judgement, and 5. the penalty.
	if autoRidge {
		if top := supportedTop(p, s); choice != nil && needsPenalty(p, res) && top > p.Rank {
			// Data that no rank fits exactly: the ranks were compared
			// unpenalized, and the penalty keeps a larger rank from
			// fitting noise while it takes in the signal that the
			// unpenalized ranks past the choice could not use (the
			// photograph: 21.2 dB at the rank chosen, 25, 21.9 at 40,
			// 22.2 at 50). The largest rank the entries support is
			// fitted, with its own penalty.
			p.Rank, s.Ridge = top, AutoRidge
			res, err = pl.solve(ctx, p, s)
		} else if s.polishes(p) && needsPenalty(p, res) {
			// 6 before 5 on robust PCA: the polish of the fit, and
			// only when that is not exact, the penalty and its polish.
			res, err = pl.polishFirst(ctx, p, s, res)
		} else {
			res, err = pl.penalize(ctx, p, s, res)
			// 6. The polish of robust PCA.
			if err == nil && s.polishes(p) {
				res, err = pl.polish(ctx, p, s, res)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if choice != nil {
		if p.Rank == choice.Rank {
			res.EffectiveRank = choice.Rank
		}
		res.RankChoice = choice
	}
	return res, nil
}

// supportedTop is the largest rank that p's measurements support, with
// the settings' start truncation (see SupportedRank).
func supportedTop(p scaledsm.Problem, s Settings) int {
	m, n1, n2 := p.Op.Dims()
	return min(scaledsm.SupportedRank(m, n1, n2, s.Truncation.Fraction), n1, n2)
}
