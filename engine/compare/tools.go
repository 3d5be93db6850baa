package compare

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// toolPackages are the Debian packages the load tools come in.
var toolPackages = map[string]string{"pgbench": "postgresql-contrib", "wrk": "wrk",
	"mariadb-slap": "mariadb-client", "mysqlslap": "mariadb-client"}

// FindTool finds a load tool on PATH, else in one of dirs (where the
// Postgres binaries or go install put theirs); the error says how to
// install it.
func FindTool(name string, dirs []string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	if pkg, ok := toolPackages[name]; ok {
		return "", fmt.Errorf("bench --compare needs %s: install it (Debian: apt-get install %s), or run scripts/setup", name, pkg)
	}
	return "", fmt.Errorf("bench --compare needs %s: run scripts/setup, which installs it", name)
}
