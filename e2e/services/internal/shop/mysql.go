package shop

import (
	"context"
	"database/sql"
	"errors"

	"github.com/go-sql-driver/mysql"
)

// MySQLLedgerQuery is what idemchaos --ledger-query reads from every
// service on MariaDB.
const MySQLLedgerQuery = "SELECT idempotency_key, account, amount, CONCAT('ch_', id) AS id, attempt_id FROM charges"

// mysqlSchema creates the tables on MariaDB (InnoDB), as Schema does on
// Postgres.
var mysqlSchema = []string{
	`CREATE TABLE IF NOT EXISTS accounts (id VARCHAR(64) PRIMARY KEY, balance BIGINT NOT NULL) ENGINE=InnoDB`,
	`CREATE TABLE IF NOT EXISTS charges (
	id BIGINT AUTO_INCREMENT PRIMARY KEY, idempotency_key VARCHAR(255) NULL, account VARCHAR(64) NOT NULL,
	amount BIGINT NOT NULL, currency VARCHAR(8) NOT NULL, attempt_id VARCHAR(255) NULL,
	created TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
	INDEX (idempotency_key), FOREIGN KEY (account) REFERENCES accounts(id)) ENGINE=InnoDB`,
	"CREATE TABLE IF NOT EXISTS idempotency_keys (`key` VARCHAR(255) PRIMARY KEY, fingerprint CHAR(64) NOT NULL, status INT NULL, response TEXT NULL, " +
		"created TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)) ENGINE=InnoDB",
	`INSERT IGNORE INTO accounts (id, balance) VALUES ('acct-1', 1000000000), ('acct-2', 1000000000), ('acct-3', 1000000000), ('acct-4', 1000000000)`,
}

// OpenMySQL connects to MariaDB (dsn is the Go driver's:
// user@tcp(host:port)/db) and creates the tables.
func OpenMySQL(ctx context.Context, dsn string) (*sql.DB, error) {
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(32)
	db.SetMaxIdleConns(32)
	for _, stmt := range mysqlSchema {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			db.Close()
			return nil, err
		}
	}
	return db, nil
}

// MySQL error numbers the services act on.
const (
	ErDupEntry        = 1062 // a unique key already has the value
	ErLockWaitTimeout = 1205 // MariaDB's answer to NOWAIT, too
	ErLockDeadlock    = 1213
	ErLockNowait      = 3572 // MySQL 8's answer to NOWAIT
)

// IsMySQLError reports whether err is a MySQL error with one of numbers.
func IsMySQLError(err error, numbers ...uint16) bool {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return false
	}
	for _, n := range numbers {
		if me.Number == n {
			return true
		}
	}
	return false
}
