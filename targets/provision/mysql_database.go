package provision

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"github.com/go-sql-driver/mysql"
)

// erNoSuchThread is MySQL's error for KILL of a connection that has ended.
const erNoSuchThread = 1094

// mysqlSystemDatabases are never dropped.
var mysqlSystemDatabases = []string{"mysql", "information_schema", "performance_schema", "sys"}

// CreateMySQLDatabase creates an empty database named from prefix plus a
// random suffix on the MySQL server and returns a URL for it, with
// MySQLURL's user, host and parameters.
func (s *Services) CreateMySQLDatabase(ctx context.Context, prefix string) (string, error) {
	name, err := databaseName(prefix)
	if err != nil {
		return "", err
	}
	dbURL, err := withDatabase(s.MySQLURL, name)
	if err != nil {
		return "", err
	}
	err = s.mysqlAdmin(ctx, func(conn *sql.Conn) error {
		_, err := conn.ExecContext(ctx, "CREATE DATABASE "+mysqlIdent(name))
		return err
	})
	if err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	return dbURL, nil
}

// DropMySQLDatabase drops the database a CreateMySQLDatabase URL names,
// killing the connections that use it first, as Postgres's WITH (FORCE)
// does (a transaction left open on it would hold the drop). Dropping a
// database that is gone is not an error; dropping MySQLURL's own database
// or a system one is refused.
func (s *Services) DropMySQLDatabase(ctx context.Context, dbURL string) error {
	name, err := databaseOn(s.MySQLURL, dbURL, mysqlSystemDatabases...)
	if err != nil {
		return err
	}
	err = s.mysqlAdmin(ctx, func(conn *sql.Conn) error {
		if err := killConnectionsOn(ctx, conn, name); err != nil {
			return err
		}
		_, err := conn.ExecContext(ctx, "DROP DATABASE IF EXISTS "+mysqlIdent(name))
		return err
	})
	if err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	return nil
}

// mysqlAdmin runs do on one fresh connection to MySQLURL.
func (s *Services) mysqlAdmin(ctx context.Context, do func(*sql.Conn) error) error {
	cfg, err := parseMySQLURL(s.MySQLURL)
	if err != nil {
		return err
	}
	db, err := mysqlOpen(cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return wrapLine(err, "connect to %s", redact(s.MySQLURL))
	}
	defer conn.Close()
	return do(conn)
}

// killConnectionsOn kills the other connections whose database is name.
func killConnectionsOn(ctx context.Context, conn *sql.Conn, name string) error {
	rows, err := conn.QueryContext(ctx,
		"SELECT id FROM information_schema.processlist WHERE db = ? AND id <> CONNECTION_ID()", name)
	if err != nil {
		return err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	rows.Close() // frees conn for the KILLs
	for _, id := range ids {
		_, err := conn.ExecContext(ctx, "KILL CONNECTION "+strconv.FormatInt(id, 10))
		var me *mysql.MySQLError
		if err != nil && !(errors.As(err, &me) && me.Number == erNoSuchThread) {
			return err
		}
	}
	return nil
}
