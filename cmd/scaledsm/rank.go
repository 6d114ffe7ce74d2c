package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/parse"
)

// rankValue is the value of --rank: a rank, or scaledsm.AutoRank for
// "auto"; 0 when not given.
type rankValue int

func (r *rankValue) String() string {
	switch {
	case r == nil || *r == 0:
		return ""
	case *r == scaledsm.AutoRank:
		return "auto"
	}
	return strconv.Itoa(int(*r))
}

func (r *rankValue) Set(s string) error {
	if s == "auto" {
		*r = scaledsm.AutoRank
		return nil
	}
	k, err := strconv.Atoi(s)
	if err != nil || k < 1 {
		return fmt.Errorf("must be at least 1, or auto")
	}
	*r = rankValue(k)
	return nil
}

// loadRank is the rank a problem is read with: auto reads it at rank 1.
func (r rankValue) loadRank() int { return max(int(r), 1) }

// rankUsage is the help of --rank.
const rankUsage = "the rank fitted, `K|auto`: an integer K (required with files; with a synthetic problem --r by\n" +
	"default, and above it over-specified), or auto, which fits the largest rank the measurements support\n" +
	"and reads the rank from its singular values (with entries: chooses it by validation on 5% held out)"

// startFlags choose the initialization and the damping of the scaled
// methods' preconditioner.
type startFlags struct {
	init, damping string
	scale         float64
	seed          uint64
	fs            *flag.FlagSet
}

// Flags of the initialization and damping, which name the library's inputs.
var startInputs = map[string]string{"init": "init", "init scale": "init-scale", "damping": "damping"}

func (s *startFlags) register(fs *flag.FlagSet) {
	s.fs = fs
	defaults, _ := scaledsm.Settings{}.Resolved()
	fs.StringVar(&s.init, "init", "spectral", "initialization: spectral (truncated, see --trim), random (small Gaussian factors) or convex (robust completion's\nconvex relaxation, solved roughly: entries of a small matrix, every iteration an SVD of it)")
	fs.Float64Var(&s.scale, "init-scale", defaults.InitScale, "random initialization: the size of L Rᵀ relative to the top singular value of the spectral\nestimate")
	fs.Uint64Var(&s.seed, "init-seed", 0, "random initialization: seed of the draw (default --seed of a synthetic problem, 1 with files)")
	fs.StringVar(&s.damping, "damping", "auto", "damping λ of the scaled methods' preconditioner (RᵀR + λI)^-1: auto (λ_t = 0.1·ρ_t·tr(RᵀR), ρ_t the\nrelative misfit, fading as the fit becomes exact), none (the paper's), or a fixed λ > 0")
}

// apply sets the initialization and damping of the settings; seed is the
// synthetic problem's seed when synthetic (0 among them), 1 otherwise.
func (s *startFlags) apply(settings *scaledsm.Settings, seed uint64, synthetic bool) error {
	set := setFlags(s.fs)
	var err error
	if settings.Start, err = parse.Start(s.init); err != nil {
		return inputFlag(err, startInputs)
	}
	if settings.Start != scaledsm.RandomStart {
		for _, name := range []string{"init-scale", "init-seed"} {
			if set[name] {
				return badFlag(name, flagValue(s.fs, name), "applies to --init random")
			}
		}
	}
	if !(s.scale > 0) || math.IsInf(s.scale, 0) {
		return badFlag("init-scale", s.scale, "must be positive and finite")
	}
	settings.InitScale = s.scale
	settings.Seed = 1 // with files
	if synthetic {
		settings.Seed = seed
	}
	if set["init-seed"] {
		settings.Seed = s.seed
	}
	if settings.Damping, err = parse.Damping(s.damping); err != nil {
		return inputFlag(err, startInputs)
	}
	return nil
}

// fitRank sets the rank of a loaded problem from --rank (a synthetic
// problem's default is its own r) and checks it against the size.
func fitRank(ld *loaded, rank rankValue, settings scaledsm.Settings) error {
	if rank == 0 {
		return nil
	}
	_, n1, n2 := ld.problem.Op.Dims()
	if int(rank) > min(n1, n2) {
		return badFlag("rank", int(rank), fmt.Sprintf("must lie in [1, min(n1, n2)] = [1, %d], or be auto", min(n1, n2)))
	}
	if rank == scaledsm.AutoRank && settings.Method == scaledsm.GD {
		return badFlag("rank", "auto", "needs a method whose step does not depend on the rank; use scaledsm, vanillasm or scaledgd")
	}
	ld.problem.Rank = int(rank)
	return nil
}

// warnRank warns when the fitted rank has more unknowns than the
// measurements support (see scaledsm.SupportedRank).
func warnRank(w io.Writer, ld *loaded) {
	k := ld.problem.Rank
	if k == scaledsm.AutoRank {
		return
	}
	ps := ld.ps // NaN, not known, counts as 0
	// The whole problem's m (on ranks, a shard's operator holds its rank's).
	m, n1, n2 := ld.shape.M, ld.shape.N1, ld.shape.N2
	if excess := scaledsm.RankExcess(k, m, n1, n2, ps); excess != "" {
		fmt.Fprintf(w, "scaledsm solve: warning: %s; give more measurements or a smaller --rank (rank %d is supported)\n",
			excess, scaledsm.SupportedRank(m, n1, n2, ps))
	}
}

// seedOf returns the seed of a synthetic problem and true, or false for
// files.
func seedOf(src source) (uint64, bool) {
	if s, ok := src.(*synthetic); ok {
		return s.cfg.Seed, true
	}
	return 0, false
}
