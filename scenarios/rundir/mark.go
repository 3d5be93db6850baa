package rundir

import (
	"errors"
	"io"
	"os"
	"path/filepath"
)

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
