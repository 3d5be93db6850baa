package rundir

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios"
)

// ClientFile, in a client cell's directory, is what a run of client mode
// observed (scenarios.ClientRecord): all JudgeClient reads.
const ClientFile = "client.json"

// ClientDir is where a client mode run of one seed lives under root:
// clients/NAME/SHAPE/seed-N.
func ClientDir(root, name, shape string, seed uint64) string {
	return filepath.Join(root, "clients", name, shape, "seed-"+strconv.FormatUint(seed, 10))
}

// WriteClient saves a client mode run and its result; result.json is
// written last, so its presence means the run is complete.
func WriteClient(dir string, rec scenarios.ClientRecord, res scenarios.Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("run dir: %w", err)
	}
	if err := writeJSON(filepath.Join(dir, ClientFile), rec); err != nil {
		return err
	}
	return writeJSON(filepath.Join(dir, ResultFile), res)
}

// ReadClient loads a client mode run and its saved result.
func ReadClient(dir string) (scenarios.ClientRecord, scenarios.Result, error) {
	var rec scenarios.ClientRecord
	var res scenarios.Result
	if err := readJSON(filepath.Join(dir, ClientFile), &rec); err != nil {
		return rec, res, err
	}
	return rec, res, readJSON(filepath.Join(dir, ResultFile), &res)
}

// isClient reports whether a cell directory holds a client mode run.
func isClient(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ClientFile))
	return err == nil
}

// clientCells lists the client mode runs under root.
func clientCells(root string) ([]string, error) {
	found, err := filepath.Glob(filepath.Join(root, "clients", "*", "*", "seed-*", ClientFile))
	dirs := make([]string, len(found))
	for i, f := range found {
		dirs[i] = filepath.Dir(f)
	}
	return dirs, err
}

// ReadClientRuns loads every client mode run saved under root, in the
// order of their directories (client, shape, seed); none is an error.
func ReadClientRuns(root string) ([]scenarios.ClientRecord, error) {
	dirs, err := clientCells(root)
	if err != nil {
		return nil, err
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("%s holds no client run (clients/NAME/SHAPE/seed-N/%s)", root, ClientFile)
	}
	slices.SortFunc(dirs, compareClientDirs)
	out := make([]scenarios.ClientRecord, len(dirs))
	for i, d := range dirs {
		if out[i], _, err = ReadClient(d); err != nil {
			return nil, fmt.Errorf("%s: %w", d, err)
		}
	}
	return out, nil
}

// compareClientDirs orders client run directories by client, shape, then
// seed as a number.
func compareClientDirs(a, b string) int {
	if c := strings.Compare(filepath.Dir(a), filepath.Dir(b)); c != 0 {
		return c
	}
	sa, _ := strconv.ParseUint(strings.TrimPrefix(filepath.Base(a), "seed-"), 10, 64)
	sb, _ := strconv.ParseUint(strings.TrimPrefix(filepath.Base(b), "seed-"), 10, 64)
	return cmp.Compare(sa, sb)
}
