package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/scaledsm/scaledsm/internal/atomicio"
	"github.com/scaledsm/scaledsm/synth"
)

// The ratings anchor (issue 35): the ratings model (--lists=false: LIBMF
// makes no top-N lists) and LIBMF
// on the same synthetic ratings, 10^6 of them in MovieLens 1M's shape
// (6,040 users, 3,700 items, half stars, seed 1), 90% to fit and 10% to
// test, in one run: each program's whole time (reading its files
// included), its peak memory and its test RMSE. LIBMF runs as mf-train
// -k 20 -l2 0.05 -r 0.05 -t 50 -s P -p test, near its best over k 10, 20
// and 40, l2 0.03 to 0.1 and 50 or 100 epochs on such data
// (docs/recommend.md); given by --libmf or found on the PATH.
var ratingsProblem = synth.RatingsConfig{Users: 6040, Items: 3700, Ratings: 1000000, Step: 0.5, Seed: 1}

// ratingsRun is one program's measurements on the ratings.
type ratingsRun struct {
	Seconds   float64 `json:"seconds"`
	PeakRSSMB float64 `json:"peak_rss_mb"`
	RMSE      float64 `json:"test_rmse"`
}

// ratingsAnchor is the ratings anchor's result.
type ratingsAnchor struct {
	Ratings  int         `json:"ratings"`
	Scaledsm *ratingsRun `json:"scaledsm,omitempty"`
	LIBMF    *ratingsRun `json:"libmf,omitempty"`
	Note     string      `json:"note,omitempty"`
}

// runRatingsAnchor measures the ratings anchor with the mf-train at path
// (found on the PATH when empty) and the scaledsm command at exe.
func runRatingsAnchor(exe, path string, quick bool) (*ratingsAnchor, error) {
	path, err := findLIBMF(path)
	if err != nil || path == "" {
		return &ratingsAnchor{Note: libmfAbsent}, err
	}
	cfg := ratingsProblem
	if quick {
		cfg.Users, cfg.Items, cfg.Ratings = 900, 1600, 100000
	}
	dir, err := os.MkdirTemp("", "scaledsm-ratings-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	// Each rating tested with probability 0.1, from a stream of the seed;
	// the same split in scaledsm's CSV and LIBMF's text.
	for _, f := range []struct {
		name      string
		test, csv bool
	}{{"train.csv", false, true}, {"test.csv", true, true}, {"train.txt", false, false}, {"test.txt", true, false}} {
		err := atomicio.WriteFile(filepath.Join(dir, f.name), func(w io.Writer) error {
			bw := bufio.NewWriter(w)
			sep := " "
			if f.csv {
				sep = ","
				fmt.Fprintln(bw, "userId,movieId,rating")
			}
			split := rand.New(rand.NewPCG(cfg.Seed, 0x5e1d))
			err := synth.EachRating(cfg, func(r synth.Rating) bool {
				if (split.Float64() < 0.1) == f.test {
					fmt.Fprintf(bw, "%d%s%d%s%s\n", r.User, sep, r.Item, sep, strconv.FormatFloat(r.Value, 'g', -1, 64))
				}
				return true
			})
			if err != nil {
				return err
			}
			return bw.Flush()
		})
		if err != nil {
			return nil, err
		}
	}
	a := &ratingsAnchor{Ratings: cfg.Ratings}
	var out bytes.Buffer
	secs, mb, err := timeProcess(exe, []string{"solve", "--ratings", filepath.Join(dir, "train.csv"), "--test", filepath.Join(dir, "test.csv"), "--lists=false", "--json"}, &out)
	if err != nil {
		return nil, fmt.Errorf("scaledsm: %v", err)
	}
	var sum struct {
		Test struct {
			RMSE float64 `json:"test_rmse"`
		} `json:"test"`
	}
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil {
		return nil, fmt.Errorf("scaledsm's summary: %v", err)
	}
	a.Scaledsm = &ratingsRun{Seconds: secs, PeakRSSMB: mb, RMSE: sum.Test.RMSE}
	out.Reset()
	secs, mb, err = timeProcess(path, []string{"-k", "20", "-l2", "0.05", "-r", "0.05", "-t", "50", "-s", strconv.Itoa(runtime.GOMAXPROCS(0)),
		"-p", filepath.Join(dir, "test.txt"), filepath.Join(dir, "train.txt"), filepath.Join(dir, "model.txt")}, &out)
	if err != nil {
		return nil, fmt.Errorf("mf-train: %v", err)
	}
	rmse, err := libmfRMSE(out.String())
	if err != nil {
		return nil, err
	}
	a.LIBMF = &ratingsRun{Seconds: secs, PeakRSSMB: mb, RMSE: rmse}
	return a, nil
}

// libmfRMSE returns the validation RMSE of mf-train's last epoch, the
// third field of its last line of figures.
func libmfRMSE(out string) (float64, error) {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		f := strings.Fields(lines[i])
		if len(f) >= 3 {
			if v, err := strconv.ParseFloat(f[2], 64); err == nil {
				return v, nil
			}
		}
	}
	return 0, fmt.Errorf("mf-train printed no validation RMSE: %q", out)
}

// row prints the anchor's row of the table and returns its note.
func (a *ratingsAnchor) row(w io.Writer, yes map[bool]string) string {
	if a.Note != "" {
		return "- libmf-ratings: " + a.Note + "."
	}
	s, l := a.Scaledsm, a.LIBMF
	speed, mem := s.Seconds/l.Seconds, s.PeakRSSMB/l.PeakRSSMB
	fmt.Fprintf(w, "| libmf-ratings | %d ratings, test RMSE %.4f (LIBMF %.4f) | %.3g s in all (LIBMF %.3g s) | - | %.2f × LIBMF | ≤ 2 × LIBMF | %s | %.0f (LIBMF %.0f: %.1f ×) | ≤ 3 × LIBMF | %s | - |\n",
		a.Ratings, s.RMSE, l.RMSE, s.Seconds, l.Seconds, speed, yes[speed <= 2], s.PeakRSSMB, l.PeakRSSMB, mem, yes[mem <= 3])
	return fmt.Sprintf("- libmf-ratings: scaledsm solve --ratings with no other flag and LIBMF's mf-train -k 20 -l2 0.05 -r 0.05 -t 50, on %d synthetic ratings split 90/10, each program's whole run (its files read); the RMSE on the 10%% held out.", a.Ratings)
}
