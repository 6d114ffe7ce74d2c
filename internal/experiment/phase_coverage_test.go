package experiment

import (
	"encoding/csv"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
)

// TestPhaseBlocksCoverage explains the block cells a phase study's
// default misses (docs/completion.md, "The 45 cells, cell by cell"): for
// each, every seed's error, the largest fraction of a row and of a column
// the blocks cover, and how many rows and columns they cover at least
// half of, from the instances regenerated from their seeds. It reads the
// phase.csv of `scaledsm phase --out DIR` at SCALEDSM_PHASE_CSV, and
// skips without it. It fails when an instance's blocks cover less than
// p_s of it (not the study's instances).
//
//	SCALEDSM_PHASE_CSV=DIR/phase.csv go test ./internal/experiment -run TestPhaseBlocksCoverage -v
func TestPhaseBlocksCoverage(t *testing.T) {
	path := os.Getenv("SCALEDSM_PHASE_CSV")
	if path == "" {
		t.Skip("SCALEDSM_PHASE_CSV is not set")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	type run struct {
		seed     uint64
		err      string
		ok       bool
		row, col float64
		half     int
	}
	var cells []phaseCase // seed 0: the cell
	byCell := map[phaseCase][]run{}
	for _, r := range recs[1:] {
		if r[0] != string(BlockOutliers) || r[6] != string(PhaseDefault) {
			continue
		}
		n1, _ := strconv.Atoi(r[1])
		n2, _ := strconv.Atoi(r[2])
		kappa, _ := strconv.ParseFloat(r[3], 64)
		ps, _ := strconv.ParseFloat(r[4], 64)
		seed, _ := strconv.ParseUint(r[5], 10, 64)
		pc := phaseCase{BlockOutliers, n1, n2, kappa, ps, seed}
		star, y, _, err := phaseInstance(pc, DefaultPhase().Rank)
		if err != nil {
			t.Fatal(err)
		}
		rows, cols, covered := make([]int, n1), make([]int, n2), 0
		for i := range n1 {
			for j := range n2 {
				if y.At(i, j) != star.At(i, j) {
					rows[i]++
					cols[j]++
					covered++
				}
			}
		}
		if covered < int(ps*float64(n1*n2)) {
			t.Errorf("%v: the blocks cover %d entries, fewer than p_s of them: not the study's instance", pc, covered)
		}
		half := 0
		for _, v := range rows {
			if 2*v >= n2 {
				half++
			}
		}
		for _, v := range cols {
			if 2*v >= n1 {
				half++
			}
		}
		cell := pc
		cell.seed = 0
		if _, seen := byCell[cell]; !seen {
			cells = append(cells, cell)
		}
		byCell[cell] = append(byCell[cell], run{seed, r[7], r[10] == "1" || r[10] == "true",
			float64(slices.Max(rows)) / float64(n2), float64(slices.Max(cols)) / float64(n1), half})
	}
	if len(cells) == 0 {
		t.Fatalf("%s: no default run on blocks", path)
	}
	var all, clean, cleanOK, okHalf, failHalf, fails, oks int
	for _, c := range cells {
		rs := byCell[c]
		good, anyHalf := 0, false
		var errs, rowf, colf, half string
		for k, r := range rs {
			sep := ""
			if k > 0 {
				sep = " / "
			}
			errs += sep + r.err
			rowf += sep + fmt.Sprintf("%.2f", r.row)
			colf += sep + fmt.Sprintf("%.2f", r.col)
			half += sep + strconv.Itoa(r.half)
			anyHalf = anyHalf || r.half > 0
			if r.ok {
				good++
				oks++
				if r.half > 0 {
					okHalf++
				}
			} else {
				fails++
				if r.half > 0 {
					failHalf++
				}
			}
		}
		if good == len(rs) {
			all++
		}
		if !anyHalf {
			clean++
			if good == len(rs) {
				cleanOK++
			}
		}
		if good < len(rs) {
			t.Logf("| %d×%d | %g | %g | %d/%d | %s | %s | %s | %s |", c.n1, c.n2, c.kappa, c.ps, good, len(rs), errs, rowf, colf, half)
		}
	}
	t.Logf("cells recovered on every seed: %d of %d; %d cells have no half-covered row or column on any seed, %d of them recovered",
		all, len(cells), clean, cleanOK)
	t.Logf("runs recovered: %d, %d of them with a half-covered row or column; failed: %d, %d with one", oks, okHalf, fails, failHalf)
}
