package strategy

import (
	"slices"

	"github.com/idemchaos/idemchaos/targets/ledger"
)

// Statement is one SQL statement a strategy sends, with the name of each
// of its parameters ($1, $2, ... in order): key, fingerprint, account,
// amount, currency, attempt, replica, body_rest (a 201 body's text from
// the end of the charge id to the balance).
type Statement struct {
	SQL    string
	Params []string
}

// Script is what one request of a strategy sends to Postgres, one entry
// per round trip (the statements of an entry travel in one pipeline).
type Script [][]Statement

var (
	stBegin  = Statement{SQL: "BEGIN"}
	stCommit = Statement{SQL: "COMMIT"}
	stLock   = Statement{SQL: sqlLock, Params: []string{"key"}}
	stCharge = Statement{SQL: sqlLockedCharge, Params: append(slices.Clone(chargeParams), "body_rest", "fingerprint")}
	stDebit  = Statement{SQL: ledger.SQLCharge, Params: chargeParams}
)

// chargeParams name ledger.ChargeArgs.
var chargeParams = []string{"account", "amount", "currency", "key", "attempt", "replica"}

// PgTxFresh is pg-tx's transaction for a fresh key: the advisory lock, then
// the read of the key row, the charge under it and the key row with its
// 201 in one statement (with BEGIN), then COMMIT. A load tool that replays
// it (pgbench) measures the SQL alone.
func PgTxFresh() Script {
	return Script{{stBegin, stLock, stCharge}, {stCommit}}
}

// NoneCharge is what none sends for every request, its key ignored: the
// debit and the charge row in one statement, in a transaction. pgbench on
// it measures the ledger's SQL without an idempotency layer.
func NoneCharge() Script {
	return Script{{stBegin, stDebit}, {stCommit}}
}

// PgTxReplay is pg-tx's transaction for a retry of a completed key: the
// same statements, which find the key row and charge nothing.
func PgTxReplay() Script {
	return Script{{stBegin, stLock, stCharge}, {stCommit}}
}
