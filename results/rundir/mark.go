package rundir

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Prepare readies dir for a new run: it must be absent (it is made) or
// empty. It marks it as a run directory and, when planned > 0, records
// that the run is to run that many cells.
func Prepare(dir string, planned int) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	case err != nil:
		return err
	case len(entries) > 0:
		return fmt.Errorf("%s: the directory is not empty; choose a new one", dir)
	}
	if err := Mark(dir); err != nil {
		return err
	}
	if planned > 0 {
		return WritePlanned(dir, planned)
	}
	return nil
}

// MarkFile marks a directory as an idemchaos run from the moment it is
// chosen, before any cell starts: a run stopped that early is still
// recognised as one (nothing to check), not mistaken for a wrong directory.
const MarkFile = "idemchaos-run"

// Mark writes the marker into dir.
func Mark(dir string) error {
	return writeAtomic(filepath.Join(dir, MarkFile), func(w io.Writer) error {
		_, err := io.WriteString(w, "an idemchaos run directory: idemchaos check DIR, idemchaos report DIR\n")
		return err
	})
}

// Marked reports whether dir carries the marker.
func Marked(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, MarkFile))
	return !errors.Is(err, os.ErrNotExist) && err == nil
}

// PlannedFile, at the run's root, says how many cells the run was to run;
// written before the first cell starts, so that a run stopped early still
// tells how many never started.
const PlannedFile = "planned.json"

// planned is the content of PlannedFile.
type planned struct {
	Cells int `json:"cells"`
}

// WritePlanned records in root that the run is to run n cells.
func WritePlanned(root string, n int) error {
	return writeJSON(filepath.Join(root, PlannedFile), planned{Cells: n})
}

// Progress is how far a saved run got.
type Progress struct {
	Planned  int  // cells the run was to run; 0: not recorded (a soak, an older run directory)
	Started  int  // cells that hold a plan
	Finished int  // cells that hold their result
	Ended    bool // the run wrote its document: it got to its end
}

// ReadProgress reads how far the run in root got; dirs are its cell
// directories (Cells).
func ReadProgress(root string, dirs []string) Progress {
	p := Progress{Started: len(dirs)}
	for _, d := range dirs {
		if Complete(d) {
			p.Finished++
		}
	}
	var pl planned
	if readJSON(filepath.Join(root, PlannedFile), &pl) == nil && pl.Cells > 0 {
		p.Planned = pl.Cells
	}
	_, err := os.Stat(filepath.Join(root, DocumentFile))
	p.Ended = err == nil
	return p
}

// Interrupted reports whether the run stopped before its end: it wrote no
// document, or a cell it started never finished.
func (p Progress) Interrupted() bool { return !p.Ended || p.Finished < p.Started }

// NeverStarted is how many planned cells have no directory; -1 when the
// run did not record how many it planned.
func (p Progress) NeverStarted() int {
	if p.Planned == 0 {
		return -1
	}
	return max(p.Planned-p.Started, 0)
}
