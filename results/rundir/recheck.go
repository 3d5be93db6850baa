package rundir

import (
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

// Checked is a finished cell of a saved run, judged again.
type Checked struct {
	Dir    string
	Record scenarios.Record
	Saved  scenarios.Result // the result saved when it ran
	Now    scenarios.Result // the result of judging it again
}

// Differs reports whether judging again changed the verdict or an anomaly
// count. An anomaly a saved result does not name counts 0: a result saved
// before the checker knew that anomaly found none of it.
func (c Checked) Differs() bool {
	return c.Now.Verdict != c.Saved.Verdict || !sameCounts(c.Now.Anomalies, c.Saved.Anomalies)
}

// sameCounts compares two anomaly counts, a missing name as 0.
func sameCounts(a, b map[check.Anomaly]int) bool {
	for name, n := range a {
		if b[name] != n {
			return false
		}
	}
	for name, n := range b {
		if a[name] != n {
			return false
		}
	}
	return true
}

// Recheck judges every finished cell of dirs again (the judge is pure, so
// a checker change is the only thing that can make a verdict differ);
// incomplete are the cells whose run stopped before they finished.
func Recheck(dirs []string) (checked []Checked, incomplete []string, err error) {
	for _, d := range dirs {
		if !Complete(d) {
			incomplete = append(incomplete, d)
			continue
		}
		c, err := recheck(d)
		if err != nil {
			return nil, nil, err
		}
		checked = append(checked, c)
	}
	return checked, incomplete, nil
}

// Finished reads the saved results of the finished cells under root, for a
// run stopped before it wrote its document.
func Finished(root string) ([]scenarios.Result, error) {
	dirs, _ := Cells(root)
	var out []scenarios.Result
	for _, d := range dirs {
		if !Complete(d) {
			continue
		}
		_, res, err := ReadRecord(d)
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	return out, nil
}

// recheck judges one finished cell again, a client mode run with
// JudgeClient (its Record left empty).
func recheck(dir string) (Checked, error) {
	if isClient(dir) {
		rec, saved, err := ReadClient(dir)
		now := scenarios.JudgeClient(rec)
		now.DurationMS = saved.DurationMS
		return Checked{Dir: dir, Saved: saved, Now: now}, err
	}
	rec, saved, err := ReadRecord(dir)
	now := scenarios.Judge(rec)
	now.DurationMS = saved.DurationMS
	return Checked{Dir: dir, Record: rec, Saved: saved, Now: now}, err
}
