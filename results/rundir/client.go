package rundir

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

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
