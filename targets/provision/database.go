package provision

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// maxPrefixLen keeps generated names under Postgres's 63-byte limit.
const maxPrefixLen = 40

// CreateDatabase creates an empty database named from prefix plus a
// random suffix on the Postgres server and returns a DSN for it, with the
// admin DSN's user, host and options.
func (s *Services) CreateDatabase(ctx context.Context, prefix string) (dsn string, err error) {
	name, err := databaseName(prefix)
	if err != nil {
		return "", err
	}
	dsn, err = withDatabase(s.PostgresURL, name)
	if err != nil {
		return "", err
	}
	if err := s.adminExec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	return dsn, nil
}

// DropDatabase drops the database a CreateDatabase DSN names, closing its
// connections (WITH (FORCE)). Dropping a database that is gone is not an
// error; dropping the maintenance or template databases is refused.
func (s *Services) DropDatabase(ctx context.Context, dsn string) error {
	name, err := s.databaseOf(dsn)
	if err != nil {
		return err
	}
	stmt := "DROP DATABASE IF EXISTS " + pgx.Identifier{name}.Sanitize() + " WITH (FORCE)"
	if err := s.adminExec(ctx, stmt); err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	return nil
}

// adminExec runs one statement on a fresh admin connection.
func (s *Services) adminExec(ctx context.Context, stmt string) error {
	conn, err := pgx.Connect(ctx, s.PostgresURL)
	if err != nil {
		return wrapLine(err, "connect to %s", redact(s.PostgresURL))
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, stmt)
	return err
}

// databaseName turns prefix into a safe lower-case identifier with a
// random suffix, e.g. "Scenario 7" → "scenario_7_1f0c9a2b".
func databaseName(prefix string) (string, error) {
	var b strings.Builder
	for _, r := range strings.ToLower(prefix) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	base := strings.Trim(b.String(), "_")
	if base == "" || (base[0] >= '0' && base[0] <= '9') {
		base = "db_" + base
	}
	base = strings.TrimRight(base[:min(len(base), maxPrefixLen)], "_")
	suffix := make([]byte, 4)
	if _, err := rand.Read(suffix); err != nil {
		return "", fmt.Errorf("random database name: %w", err)
	}
	return base + "_" + hex.EncodeToString(suffix), nil
}

// withDatabase returns the admin DSN with its database replaced by name.
func withDatabase(admin, name string) (string, error) {
	u, err := url.Parse(admin)
	if err != nil {
		return "", fmt.Errorf("admin DSN %s is not a URL", redactAs(admin, legacyMask))
	}
	u.Path, u.RawPath = "/"+name, ""
	return u.String(), nil
}

// databaseOf returns the database dsn names, refusing DSNs for another
// server and the databases a cluster needs.
func (s *Services) databaseOf(dsn string) (string, error) {
	return databaseOn(s.PostgresURL, dsn, "postgres", "template0", "template1")
}

// databaseOn returns the database dsn names on the server of the admin
// URL, refusing DSNs for another server, the admin URL's own database and
// the reserved ones.
func databaseOn(adminURL, dsn string, reserved ...string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", fmt.Errorf("DSN %s is not a URL", redactAs(dsn, legacyMask))
	}
	admin, err := url.Parse(adminURL)
	if err != nil {
		return "", fmt.Errorf("admin DSN %s is not a URL", redactAs(adminURL, legacyMask))
	}
	if u.Host != admin.Host {
		return "", fmt.Errorf("DSN %s is not on server %s", redact(dsn), admin.Host)
	}
	name := strings.TrimPrefix(u.Path, "/")
	if name == "" || slices.Contains(reserved, name) {
		return "", fmt.Errorf("refusing to drop database %q", name)
	}
	if admin.Path == "/"+name {
		return "", fmt.Errorf("refusing to drop the admin database %q", name)
	}
	return name, nil
}
