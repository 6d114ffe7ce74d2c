package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// listsModel fits the default recommender to generate's ratings of users
// who chose what they rate, and returns its directory and the ratings'.
func listsModel(t *testing.T) (model, data string) {
	t.Helper()
	data = t.TempDir()
	if code, _, errs := cli(t, "generate", "--problem", "ratings", "--users", "300", "--items", "400", "--ratings", "12000", "--choice", "2", "--out", data); code != 0 {
		t.Fatal(errs)
	}
	model = filepath.Join(t.TempDir(), "m")
	if code, _, errs := cli(t, "solve", "--ratings", filepath.Join(data, "train.csv"), "--out", model); code != 0 {
		t.Fatal(errs)
	}
	return model, data
}

// TestRecommendCommand runs recommend as a user would: the lists of every
// user in the CSV layout (a header, ranks from 1, scores decreasing, no
// training item), then each bad input refused in one line with exit 2 and
// nothing written.
func TestRecommendCommand(t *testing.T) {
	model, data := listsModel(t)
	out := filepath.Join(t.TempDir(), "top.csv")
	code, stdout, errs := cli(t, "recommend", "--factors", model, "--top", "5", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(stdout, "wrote the top 5 items of 300 users") {
		t.Errorf("stdout %q", stdout)
	}
	rows := readCSV(t, out)
	if strings.Join(rows[0], ",") != "user,item,rank,score" || len(rows) != 1+300*5 {
		t.Fatalf("header %v, %d rows", rows[0], len(rows))
	}
	seen := map[string]bool{}
	for _, r := range readCSV(t, filepath.Join(data, "train.csv"))[1:] {
		seen[r[0]+","+r[1]] = true
	}
	for k, r := range rows[1:] {
		if seen[r[0]+","+r[1]] {
			t.Fatalf("row %d lists the training pair %v", k+2, r)
		}
		if rank, _ := strconv.Atoi(r[2]); rank != k%5+1 {
			t.Fatalf("row %d: rank %s, want %d", k+2, r[2], k%5+1)
		}
		if k%5 > 0 {
			prev, _ := strconv.ParseFloat(rows[k][3], 64)
			cur, _ := strconv.ParseFloat(r[3], 64)
			if cur > prev {
				t.Fatalf("row %d: score %v above the one before, %v", k+2, cur, prev)
			}
		}
	}
	// --users with an id the model does not have: said, and listed only
	// with --cold popular.
	users := filepath.Join(t.TempDir(), "users.txt")
	os.WriteFile(users, []byte("userId\n1\n999999\n2\n"), 0o644)
	code, stdout, _ = cli(t, "recommend", "--factors", model, "--users", users, "--top", "3", "--out", out)
	if code != 0 || !strings.Contains(stdout, "1 of the 3 users") || len(readCSV(t, out)) != 1+2*3 {
		t.Errorf("--users: exit %d, %q, %d rows", code, stdout, len(readCSV(t, out)))
	}
	code, _, _ = cli(t, "recommend", "--factors", model, "--users", users, "--top", "3", "--cold", "popular", "--out", out)
	if rows := readCSV(t, out); code != 0 || len(rows) != 1+3*3 || rows[4][0] != "999999" {
		t.Errorf("--cold popular: exit %d, rows %v", code, rows)
	}
	// Bad input.
	bare := filepath.Join(t.TempDir(), "bare")
	if code, _, errs := cli(t, "solve", "--ratings", filepath.Join(data, "train.csv"), "--lists=false", "--out", bare); code != 0 {
		t.Fatal(errs)
	}
	fresh := filepath.Join(t.TempDir(), "x.csv")
	noUsers := filepath.Join(t.TempDir(), "none.txt")
	os.WriteFile(noUsers, []byte("userId\n\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--factors", model, "--top", "0", "--out", fresh}, "--top 0: must be at least 1"},
		{[]string{"--factors", model, "--top", "401", "--out", fresh}, "the model has"},
		{[]string{"--factors", bare, "--out", fresh}, "has no lists"},
		{[]string{"--factors", data, "--out", fresh}, "holds no model.json"},
		{[]string{"--factors", model, "--cold", "random", "--out", fresh}, "--cold random"},
		{[]string{"--factors", model, "--out", users}, "--out"},
		{[]string{"--factors", model, "--users", noUsers, "--out", fresh}, "--users " + noUsers + ": holds no ids"}, // not every user's lists
	} {
		code, _, errs := cli(t, append([]string{"recommend"}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want exit 2 and one line with %q", c.args, code, errs, c.want)
		}
		if _, err := os.Stat(fresh); err == nil {
			t.Fatalf("%v: %s written", c.args, fresh)
		}
	}
}

// TestSolveInteractions fits implicit feedback from a file of user,item
// lines (no header, no weights) and one with a header and counts; reports
// the lists on held-out interactions beside the most popular items'; and
// refuses a count that is not positive, naming its line.
func TestSolveInteractions(t *testing.T) {
	_, data := listsModel(t)
	dir := t.TempDir()
	var plain, counted strings.Builder
	counted.WriteString("user_id,item_id,plays\n")
	for k, r := range readCSV(t, filepath.Join(data, "train.csv"))[1:] {
		plain.WriteString(r[0] + "\t" + r[1] + "\n")
		counted.WriteString(r[0] + "," + r[1] + "," + strconv.Itoa(1+k%7) + "\n")
	}
	files := map[string]string{"plain.tsv": plain.String(), "counted.csv": counted.String()}
	for name, text := range files {
		os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
	}
	out := filepath.Join(dir, "m")
	code, stdout, errs := cli(t, "solve", "--interactions", filepath.Join(dir, "plain.tsv"), "--holdout", "0.2", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"problem    interactions from", "lists      rank-", "most popular", "R@20"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the summary has no %q:\n%s", want, stdout)
		}
	}
	if code, _, errs := cli(t, "recommend", "--factors", out, "--out", filepath.Join(dir, "top.csv")); code != 0 {
		t.Errorf("recommend of an implicit model: exit %d: %s", code, errs)
	}
	// holdout.csv: the held-out pairs, each the file's, as many as the
	// file's lines less those fitted (it was not written).
	held := readCSV(t, filepath.Join(out, "holdout.csv"))
	var sum struct{ Ratings int }
	if b, err := os.ReadFile(filepath.Join(out, "summary.json")); err != nil || json.Unmarshal(b, &sum) != nil {
		t.Fatalf("summary.json: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(plain.String()), "\n")
	if strings.Join(held[0], ",") != "user,item" || len(held)-1+sum.Ratings != len(lines) || len(held) < len(lines)/10 {
		t.Fatalf("holdout.csv: header %v, %d pairs, %d fitted, of %d lines", held[0], len(held)-1, sum.Ratings, len(lines))
	}
	inFile := map[string]bool{}
	for _, l := range lines {
		inFile[strings.Replace(l, "\t", ",", 1)] = true
	}
	for _, r := range held[1:] {
		if !inFile[strings.Join(r, ",")] {
			t.Fatalf("holdout.csv holds %v, not in the file", r)
		}
	}
	if code, _, errs := cli(t, "solve", "--interactions", filepath.Join(dir, "counted.csv"), "--weight", "log", "--out", filepath.Join(dir, "m2")); code != 0 {
		t.Errorf("counts with a header: exit %d: %s", code, errs)
	}
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("1,2,3\n1,3,-1\n"), 0o644)
	code, _, errs = cli(t, "solve", "--interactions", bad, "--out", filepath.Join(dir, "m3"))
	if code != 2 || !strings.Contains(errs, "line 2") || !strings.Contains(errs, "positive") {
		t.Errorf("a negative count: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "m3")); err == nil {
		t.Error("a model written for a bad file")
	}
	code, _, errs = cli(t, "solve", "--interactions", bad, "--nu", "4")
	if code != 2 || !strings.Contains(errs, "--nu") {
		t.Errorf("--nu with --interactions: exit %d, %q", code, errs)
	}
	// A pair twice is bad input named by its lines (it was exit 1 and
	// 'ratings 0 and 3'); a weight scheme without a weight column is
	// refused, not reported as used.
	twice := filepath.Join(dir, "twice.csv")
	os.WriteFile(twice, []byte("1,2\n3,4\n5,6\n1,2\n"), 0o644)
	code, _, errs = cli(t, "solve", "--interactions", twice, "--out", filepath.Join(dir, "m4"))
	if code != 2 || !strings.Contains(errs, "lines 1 and 4 both hold user 1, item 2") {
		t.Errorf("a pair twice: exit %d, %q", code, errs)
	}
	code, _, errs = cli(t, "solve", "--interactions", twice, "--columns", "1,2", "--weight", "log")
	if code != 2 || !strings.Contains(errs, "--weight log: needs a weight column") {
		t.Errorf("--weight log of two columns: exit %d, %q", code, errs)
	}
}

// TestUpdateCommand folds new ratings in as a service would: update
// writes the updated model to a new directory and leaves the one given as
// it was; predict and recommend with --ratings fold the same ratings in
// first and give what the updated model gives; bad input is one line,
// exit 2, nothing written.
func TestUpdateCommand(t *testing.T) {
	model, data := listsModel(t)
	dir := t.TempDir()
	before, _ := os.ReadFile(filepath.Join(model, "model.json"))
	newRatings := filepath.Join(dir, "new.csv")
	rows := readCSV(t, filepath.Join(data, "test.csv"))
	var b strings.Builder
	b.WriteString("userId,movieId,rating\n")
	for k, r := range rows[1:] {
		if k%2 == 0 {
			b.WriteString(strings.Join(r[:3], ",") + "\n")
		}
	}
	b.WriteString("777777,1,5\n777777,2,4\n") // a new user
	os.WriteFile(newRatings, []byte(b.String()), 0o644)
	updated := filepath.Join(dir, "updated")
	code, stdout, errs := cli(t, "update", "--factors", model, "--ratings", newRatings, "--out", updated)
	if code != 0 || !strings.Contains(stdout, "1 new users") {
		t.Fatalf("update: exit %d, %q, %s", code, stdout, errs)
	}
	if after, _ := os.ReadFile(filepath.Join(model, "model.json")); string(after) != string(before) {
		t.Error("update changed the model given")
	}
	pairs := filepath.Join(data, "test.csv")
	p1, p2 := filepath.Join(dir, "p1.csv"), filepath.Join(dir, "p2.csv")
	if code, _, errs := cli(t, "predict", "--factors", model, "--ratings", newRatings, "--pairs", pairs, "--out", p1); code != 0 {
		t.Fatal(errs)
	}
	if code, _, errs := cli(t, "predict", "--factors", updated, "--pairs", pairs, "--out", p2); code != 0 {
		t.Fatal(errs)
	}
	if a, b := readCSV(t, p1), readCSV(t, p2); len(a) != len(b) || strings.Join(a[len(a)-1], ",") != strings.Join(b[len(b)-1], ",") {
		t.Error("predict --ratings differs from predict of the updated model")
	}
	l1, l2 := filepath.Join(dir, "l1.csv"), filepath.Join(dir, "l2.csv")
	cli(t, "recommend", "--factors", model, "--ratings", newRatings, "--out", l1)
	cli(t, "recommend", "--factors", updated, "--out", l2)
	if a, b := readCSV(t, l1), readCSV(t, l2); len(a) != len(b) || len(a) != 1+301*10 {
		t.Errorf("recommend --ratings: %d rows, of the updated model %d, want %d", len(a), len(b), 1+301*10)
	}
	// A new user who rated only a new item: nothing places them, so the
	// list is --cold's, and the line says so.
	lone, users, l3 := filepath.Join(dir, "lone.csv"), filepath.Join(dir, "users.txt"), filepath.Join(dir, "l3.csv")
	os.WriteFile(lone, []byte("888888,99999991,4\n"), 0o644)
	os.WriteFile(users, []byte("888888\n"), 0o644)
	code, stdout, errs = cli(t, "recommend", "--factors", updated, "--ratings", lone, "--users", users, "--cold", "popular", "--top", "3", "--out", l3)
	if code != 0 || !strings.Contains(stdout, "1 user whose items the model cannot place") {
		t.Fatalf("recommend for a user of new items alone: exit %d, %q, %s", code, stdout, errs)
	}
	if got := readCSV(t, l3); len(got) != 4 || got[1][3] == "0" {
		t.Errorf("the list of a user of new items alone: %v, want the popular items with their counts", got)
	}
	// Bad input.
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("1,1,9\n"), 0o644)
	cols := filepath.Join(dir, "cols.csv")
	os.WriteFile(cols, []byte("a,b\n1,2\n"), 0o644)
	other := filepath.Join(dir, "other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "model.json"), []byte(`{"format": "someone-else/3"}`), 0o644)
	fresh := filepath.Join(dir, "fresh")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--factors", model, "--ratings", bad, "--out", fresh}, "outside the model's scale"},
		{[]string{"--factors", model, "--ratings", cols, "--out", fresh}, "--ratings " + cols},
		{[]string{"--factors", other, "--ratings", newRatings, "--out", fresh}, "format"},
		{[]string{"--factors", model, "--ratings", newRatings, "--out", model}, "is the directory of --factors"},
		{[]string{"--factors", model, "--interactions", newRatings, "--out", fresh}, "the model is of ratings"},
	} {
		code, _, errs := cli(t, append([]string{"update"}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want exit 2 and one line with %q", c.args, code, errs, c.want)
		}
		if _, err := os.Stat(fresh); err == nil {
			t.Fatalf("%v: %s written", c.args, fresh)
		}
	}
}
