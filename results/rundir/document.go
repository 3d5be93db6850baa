package rundir

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// ErrNoDocument is returned by ReadDocument for a run directory without
// its document: a run stopped before it finished.
var ErrNoDocument = errors.New("no " + DocumentFile)

// WriteDocument saves the run's canonical document at the root of dir.
func WriteDocument(dir string, doc results.Document) error {
	return writeAtomic(filepath.Join(dir, DocumentFile), func(w io.Writer) error {
		return results.WriteJSON(w, doc)
	})
}

// ReadDocument reads the run's canonical document from the root of dir.
// An error names the file; a missing one is ErrNoDocument.
func ReadDocument(dir string) (results.Document, error) {
	f, err := os.Open(filepath.Join(dir, DocumentFile))
	if errors.Is(err, os.ErrNotExist) {
		return results.Document{}, fmt.Errorf("%s: %w", dir, ErrNoDocument)
	}
	if err != nil {
		return results.Document{}, fmt.Errorf("%s: %v", dir, err)
	}
	defer f.Close()
	doc, err := results.ReadJSON(io.LimitReader(f, maxFile))
	if err != nil {
		return doc, fmt.Errorf("%s: %s: %s", dir, DocumentFile, strings.TrimPrefix(err.Error(), "read results: "))
	}
	return doc, nil
}

// InRunOrder sorts results found in directory order into the order a run
// shows them: that of saved (its document's results), else the catalog's
// (strategies as design lists them, scenarios as the catalog does), then
// by seed.
func InRunOrder(rs, saved []scenarios.Result) []scenarios.Result {
	var sts, scs []string
	for _, r := range saved {
		sts, scs = appendNew(sts, r.Strategy), appendNew(scs, r.Scenario)
	}
	for _, n := range design.Names() {
		sts = appendNew(sts, n)
	}
	for _, n := range scenarios.Names() {
		scs = appendNew(scs, n)
	}
	for _, r := range rs { // a user's service, a scenario file: in the order found
		sts, scs = appendNew(sts, r.Strategy), appendNew(scs, r.Scenario)
	}
	out := slices.Clone(rs)
	slices.SortStableFunc(out, func(a, b scenarios.Result) int {
		return cmp.Or(cmp.Compare(slices.Index(sts, a.Strategy), slices.Index(sts, b.Strategy)),
			cmp.Compare(slices.Index(scs, a.Scenario), slices.Index(scs, b.Scenario)), cmp.Compare(a.Seed, b.Seed))
	})
	return out
}

func appendNew(list []string, v string) []string {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}
