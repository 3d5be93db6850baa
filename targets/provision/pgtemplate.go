package provision

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// A cluster fresh from initdb is the same for one Postgres build, one
// account and one set of initdb options, and initdb costs about a second
// of CPU (it runs postgres in bootstrap and single-user mode). With a
// cluster cache (Config.ClusterCache), the first start keeps a copy of its
// fresh cluster there, and later starts copy it instead of running
// initdb: under a second in make test's runs, where one initdb took 14 s
// at the suite's load.

// ClusterCacheDir is where a command keeps its cluster cache: override
// when set ("off": none), else idemchaos/clusters under userCache (the
// user's cache dir, os.UserCacheDir's), else none.
func ClusterCacheDir(override, userCache string) string {
	switch {
	case override == "off":
		return ""
	case override != "":
		return override
	case userCache != "":
		return filepath.Join(userCache, "idemchaos", "clusters")
	}
	return ""
}

// templatePrefix names a cached cluster; a name Sweep never matches.
const templatePrefix = "postgres-"

// initdbArgs are initdb's options after -D DIR.
var initdbArgs = []string{"-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync"}

// template is the cached cluster's path for this server build and
// account, or "" when pg has no cache or its version cannot be read.
func (pg *localPG) template(ctx context.Context) string {
	if pg.cache == "" {
		return ""
	}
	line := pg.versionLine(ctx)
	if line == "" {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%d:%d\n%s\n", pg.bin, line, pg.acct.uid, pg.acct.gid, strings.Join(initdbArgs, " "))
	return filepath.Join(pg.cache, templatePrefix+hex.EncodeToString(h.Sum(nil))[:16])
}

// fromTemplate copies the cached cluster to pg.dir/data; false when there
// is none (or the copy failed: logged, and the partial copy removed).
func (pg *localPG) fromTemplate(tmpl string) bool {
	if tmpl == "" {
		return false
	}
	if _, err := os.Stat(filepath.Join(tmpl, "PG_VERSION")); err != nil {
		return false
	}
	t0 := time.Now()
	data := filepath.Join(pg.dir, "data")
	if err := copyTree(tmpl, data, pg.acct); err != nil {
		pg.log.printf("cluster cache %s: %v; running initdb", tmpl, err)
		os.RemoveAll(data)
		return false
	}
	pg.log.printf("cluster copied from %s in %v", tmpl, time.Since(t0).Round(time.Millisecond))
	return true
}

// keepTemplate copies the fresh cluster in pg.dir/data into the cache as
// tmpl, whole or not at all (a copy under another name, then renamed); a
// failure is logged, never the start's.
func (pg *localPG) keepTemplate(tmpl string) {
	if tmpl == "" {
		return
	}
	if err := os.MkdirAll(pg.cache, 0o755); err != nil {
		pg.log.printf("cluster cache: %v", err)
		return
	}
	sweepCopies(pg.cache)
	tmp, err := os.MkdirTemp(pg.cache, tmpCopyPrefix)
	if err != nil {
		pg.log.printf("cluster cache: %v", err)
		return
	}
	defer os.RemoveAll(tmp)
	own := account{uid: os.Getuid(), gid: os.Getgid()}
	if err := copyTree(filepath.Join(pg.dir, "data"), filepath.Join(tmp, "data"), own); err != nil {
		pg.log.printf("cluster cache: %v", err)
		return
	}
	// another start may have kept the same cluster first: either is good
	if err := os.Rename(filepath.Join(tmp, "data"), tmpl); err != nil && !errors.Is(err, fs.ErrExist) && !isNotEmpty(err) {
		pg.log.printf("cluster cache: %v", err)
	}
}

// tmpCopyPrefix names a copy being made; one older than orphanAge was
// left by a start that was killed while it copied.
const tmpCopyPrefix = ".tmp-"

// sweepCopies removes the copies under cache that a killed start left.
func sweepCopies(cache string) {
	entries, _ := os.ReadDir(cache)
	for _, e := range entries {
		info, err := e.Info()
		if err == nil && strings.HasPrefix(e.Name(), tmpCopyPrefix) && time.Since(info.ModTime()) > orphanAge {
			os.RemoveAll(filepath.Join(cache, e.Name()))
		}
	}
}

// isNotEmpty reports a rename onto a directory that has entries.
func isNotEmpty(err error) bool { return errors.Is(err, syscall.ENOTEMPTY) }

// copyTree copies the directories and regular files under from to to,
// with their modes, owned by acct when it runs as another user.
func copyTree(from, to string, acct account) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			err = os.Mkdir(dst, info.Mode().Perm())
		case info.Mode().IsRegular():
			err = copyFile(path, dst, info.Mode().Perm())
		default:
			return fmt.Errorf("copy %s: not a file or directory", path)
		}
		if err == nil && acct.cred != nil {
			err = os.Lchown(dst, acct.uid, acct.gid)
		}
		return err
	})
}

// copyFile copies the regular file from to a new file to with mode perm.
func copyFile(from, to string, perm fs.FileMode) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
