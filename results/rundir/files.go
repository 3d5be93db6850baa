package rundir

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/idemchaos/idemchaos/sim/history"
)

// maxFile bounds a JSON file read from a run directory.
const maxFile = 512 << 20

// writeJSON writes v, indented, atomically.
func writeJSON(path string, v any) error {
	return writeAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}

// WriteAtomic writes a file through a temporary file in the same directory,
// synced and renamed into place.
func WriteAtomic(path string, write func(io.Writer) error) error { return writeAtomic(path, write) }

func writeAtomic(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	err = write(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// readJSON decodes the first JSON value of a file as encoding/json's
// Decoder does (history.Decode: the ledger and the Redis records without
// reflection), naming the file in any error.
func readJSON(path string, v any) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFile))
	if err == nil {
		err = history.Decode(data, v)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
