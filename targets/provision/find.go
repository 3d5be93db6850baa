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
	errNoMariaDBBin  = errors.New("no MariaDB server binaries found (mariadbd and mariadb-install-db in PATH, /usr/sbin, /usr/bin, /usr/local/bin)")
)

// mariaDBDirs are searched for mariadbd and mariadb-install-db after PATH:
// Debian puts mariadbd in /usr/sbin, which a user's PATH often lacks.
var mariaDBDirs = []string{"/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"}

// finder locates server binaries. Tests replace it to simulate a machine
// without them.
type finder struct {
	pgDirs    func(ctx context.Context) []string // candidate bin dirs, best first
	redisPath func() (string, error)             // path of redis-server
	mariaDB   func() (mariaDBBins, error)        // paths of mariadbd and mariadb-install-db
}

// mariaDBBins are the two programs a local MariaDB start runs.
type mariaDBBins struct {
	server  string // mariadbd
	install string // mariadb-install-db
}

// defaultFinder searches pgBinDir (Config.PGBinDir; "" = none) first,
// then the usual places.
func defaultFinder(pgBinDir string) finder {
	return finder{
		pgDirs:    func(ctx context.Context) []string { return defaultPGDirs(ctx, pgBinDir) },
		redisPath: defaultRedisPath,
		mariaDB:   defaultMariaDBBins,
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

// defaultMariaDBBins finds mariadbd and mariadb-install-db, each on PATH
// or in mariaDBDirs.
func defaultMariaDBBins() (mariaDBBins, error) { return findMariaDB(exec.LookPath, mariaDBDirs) }

// findMariaDB finds mariadbd and mariadb-install-db, each with lookPath
// (nil: not used) or else in the first of dirs that holds it.
func findMariaDB(lookPath func(string) (string, error), dirs []string) (mariaDBBins, error) {
	find := func(name string) string {
		if lookPath != nil {
			if p, err := lookPath(name); err == nil {
				return p
			}
		}
		for _, d := range dirs {
			if p := filepath.Join(d, name); isExecutable(p) {
				return p
			}
		}
		return ""
	}
	b := mariaDBBins{server: find("mariadbd"), install: find("mariadb-install-db")}
	if b.server == "" || b.install == "" {
		return mariaDBBins{}, errNoMariaDBBin
	}
	return b, nil
}

func isExecutable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0
}
