package engine

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/idemchaos/idemchaos/targets/provision"
)

// Ledger is a user's ledger opened from its URL: the run's charges, those
// its keyless attempts made, which optional columns the query returns.
type Ledger interface {
	LedgerReader
	KeylessReader
	Info() LedgerInfo
	Close()
}

// urlScheme is a URL's scheme; a key=value DSN has none.
var urlScheme = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*)://`)

// OpenLedger opens the ledger at url, read with the user's query, on the
// SQL engine the URL's scheme names: mysql:// or mariadb:// a MySQL-family
// server, postgres:// or postgresql:// (or a key=value DSN) Postgres.
// This is the one place the engine is chosen. Another scheme, or a URL or
// query that does not fit, is a *BadInputError; a ledger that cannot be
// reached is a plain error (the environment).
func OpenLedger(ctx context.Context, url, query string) (Ledger, error) {
	m := urlScheme.FindStringSubmatch(url)
	scheme := ""
	if m != nil {
		scheme = strings.ToLower(m[1])
	}
	var l Ledger
	var err error
	switch scheme {
	case "mysql", "mariadb":
		l, err = OpenMySQLLedger(ctx, url, query)
	case "", "postgres", "postgresql":
		l, err = OpenSQLLedger(ctx, url, query)
	default:
		return nil, &BadInputError{fmt.Errorf("ledger url %q: scheme %q not supported; want postgres:// (or a key=value DSN), mysql:// or mariadb://",
			provision.Redact(url), scheme)}
	}
	if err != nil { // never a typed nil in the interface
		return nil, err
	}
	return l, nil
}

// ledgerQuery is the user's query as the wrapping takes it, or why it
// cannot be: param is how the engine writes a query parameter, and the
// query takes none.
func ledgerQuery(query, param string) (string, error) {
	query = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(query), ";"))
	if strings.Contains(query, param) {
		return "", &BadInputError{fmt.Errorf("ledger query: takes no parameters (%s): idemchaos filters the rows by the run's keys itself", param)}
	}
	return query, nil
}
