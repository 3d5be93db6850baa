package rundir

import (
	"maps"

	"github.com/idemchaos/idemchaos/scenarios"
)

// Checked is a finished cell of a saved run, judged again.
type Checked struct {
	Dir    string
	Record scenarios.Record
	Saved  scenarios.Result // the result saved when it ran
	Now    scenarios.Result // the result of judging it again
}

// Differs reports whether judging again changed the verdict or an anomaly count.
func (c Checked) Differs() bool {
	return c.Now.Verdict != c.Saved.Verdict || !maps.Equal(c.Now.Anomalies, c.Saved.Anomalies)
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
		rec, saved, err := ReadRecord(d)
		if err != nil {
			return nil, nil, err
		}
		now := scenarios.Judge(rec)
		now.DurationMS = saved.DurationMS
		checked = append(checked, Checked{Dir: d, Record: rec, Saved: saved, Now: now})
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
