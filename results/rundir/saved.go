package rundir

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/idemchaos/idemchaos/results"
)

// Saved is a saved document, as `idemchaos report` reads it: a run's or a
// bench's, never both.
type Saved struct {
	Path  string            // the file it was read from, or the run directory of a partial run
	Run   *results.Document // a run (matrix, run, check, merge) document
	Bench *results.Bench    // a bench document
}

// Load reads target: a run directory (its document or, when the run
// stopped before it wrote one, a partial document of the cells that
// finished), or a JSON file holding a run or a bench document. Every error
// is one line naming what it could not read.
func Load(target string) (Saved, error) {
	path := target
	if fi, err := os.Stat(target); err == nil && fi.IsDir() {
		path = filepath.Join(target, DocumentFile)
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) && Marked(target) {
			return partial(target)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Saved{}, err
	}
	if results.IsBench(data) {
		doc, err := results.ReadBench(bytes.NewReader(data))
		if err != nil {
			return Saved{}, fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "read bench: "))
		}
		return Saved{Path: path, Bench: &doc}, nil
	}
	doc, err := results.ReadJSON(bytes.NewReader(data))
	if err != nil {
		return Saved{}, fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "read results: "))
	}
	return Saved{Path: path, Run: &doc}, nil
}

// partial is the document of a run directory whose run was stopped before
// it wrote its document, from the cells that finished.
func partial(dir string) (Saved, error) {
	rs, err := Finished(dir)
	if err != nil {
		return Saved{}, err
	}
	doc := results.Document{Command: "partial", Results: InRunOrder(rs, nil)}
	if len(doc.Results) == 0 {
		return Saved{}, fmt.Errorf("%s: the run stopped before any cell finished; nothing to report", dir)
	}
	return Saved{Path: dir, Run: &doc}, nil
}
