package provisiontest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Build makes the binaries of the main packages pkgs (import paths, or
// directories relative to the test's) ready to run and returns the
// directory that holds them, each named after its package's last path
// element, as go build names it. When the suite built them once already
// (Binaries), that directory, which must hold every one of them;
// otherwise one go build into dir, whose links run in parallel.
func Build(dir string, pkgs ...string) (string, error) {
	if bin := Binaries(); bin != "" {
		return bin, built(bin, pkgs)
	}
	cmd := exec.Command("go", append([]string{"build", "-o", dir + string(filepath.Separator)}, pkgs...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %v: %w\n%s", pkgs, err, out)
	}
	return dir, nil
}

// built checks that bin holds a binary of every one of pkgs.
func built(bin string, pkgs []string) error {
	var errs []error
	for _, pkg := range pkgs {
		name, err := binaryName(pkg)
		if err == nil {
			_, err = os.Stat(filepath.Join(bin, name))
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("IDEMCHAOS_TEST_BIN=%s lacks a binary the tests run (make test builds them there): %w", bin, err)
	}
	return nil
}

// binaryName is the name go build gives pkg's binary: the last element
// of its import path or directory.
func binaryName(pkg string) (string, error) {
	if base := filepath.Base(pkg); base != "." && base != ".." {
		return base, nil
	}
	abs, err := filepath.Abs(pkg)
	if err != nil {
		return "", err
	}
	return filepath.Base(abs), nil
}
