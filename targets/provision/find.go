package provision

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// pgConfigTimeout bounds `pg_config --bindir`.
const pgConfigTimeout = 2 * time.Second

var (
	errNoPostgresBin = errors.New("no postgres binaries found (PATH, pg_config --bindir, /usr/lib/postgresql/*/bin)")
	errNoRedisBin    = errors.New("no redis-server binary found (PATH, /usr/bin, /usr/local/bin, /usr/sbin)")
)

// finder locates server binaries. Tests replace it to simulate a machine
// without them.
type finder struct {
	pgDirs    func(ctx context.Context) []string // candidate bin dirs, best first
	redisPath func() (string, error)             // path of redis-server
}

// defaultFinder searches pgBinDir (Config.PGBinDir; "" = none) first,
// then the usual places.
func defaultFinder(pgBinDir string) finder {
	return finder{
		pgDirs:    func(ctx context.Context) []string { return defaultPGDirs(ctx, pgBinDir) },
		redisPath: defaultRedisPath,
	}
}

// defaultPGDirs lists candidate Postgres bin dirs: pgBinDir when set, the
// dir of initdb on PATH (symlinks resolved), `pg_config --bindir`, then
// the usual install locations, newest version first.
func defaultPGDirs(ctx context.Context, pgBinDir string) []string {
	var dirs []string
	if pgBinDir != "" {
		dirs = append(dirs, pgBinDir)
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		dirs = append(dirs, filepath.Dir(p))
	}
	if d := pgConfigBindir(ctx); d != "" {
		dirs = append(dirs, d)
	}
	for _, pattern := range []string{"/usr/lib/postgresql/*/bin", "/usr/pgsql-*/bin"} {
		dirs = append(dirs, globNewestFirst(pattern)...)
	}
	return append(dirs, "/usr/local/pgsql/bin")
}

// pgConfigBindir asks pg_config for the bin dir; "" when it cannot.
func pgConfigBindir(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, pgConfigTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "pg_config", "--bindir").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// globNewestFirst expands pattern and sorts the matches by the version
// number in their path, highest first.
func globNewestFirst(pattern string) []string {
	matches, _ := filepath.Glob(pattern) // only ErrBadPattern, impossible for ours
	slices.SortStableFunc(matches, func(a, b string) int {
		return slices.Compare(versionKey(b), versionKey(a))
	})
	return matches
}

var versionNumbers = regexp.MustCompile(`\d+`)

// versionKey extracts the numbers of a path, e.g. /usr/pgsql-15.2/bin → [15 2].
func versionKey(path string) []int {
	var key []int
	for _, s := range versionNumbers.FindAllString(path, -1) {
		n, err := strconv.Atoi(s)
		if err != nil {
			n = 0
		}
		key = append(key, n)
	}
	return key
}

// findPostgresBin returns the first dir holding both initdb and postgres.
func findPostgresBin(dirs []string) (string, error) {
	for _, d := range dirs {
		if isExecutable(filepath.Join(d, "initdb")) && isExecutable(filepath.Join(d, "postgres")) {
			return d, nil
		}
	}
	return "", errNoPostgresBin
}

// defaultRedisPath finds redis-server on PATH or in the usual dirs.
func defaultRedisPath() (string, error) {
	if p, err := exec.LookPath("redis-server"); err == nil {
		return p, nil
	}
	return redisIn("/usr/bin", "/usr/local/bin", "/usr/sbin")
}

// redisIn returns the first dir's redis-server that is executable.
func redisIn(dirs ...string) (string, error) {
	for _, d := range dirs {
		if p := filepath.Join(d, "redis-server"); isExecutable(p) {
			return p, nil
		}
	}
	return "", errNoRedisBin
}

func isExecutable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0
}
