package strategy

import "github.com/idemchaos/idemchaos/targets/ledger"

// Statement is one SQL statement a strategy sends, with the name of each
// of its parameters ($1, $2, ... in order): key, fingerprint, account,
// amount, currency, attempt, replica, status, body.
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
	stClaim  = Statement{SQL: sqlClaimUnderLock, Params: []string{"key", "fingerprint"}}
	stRead   = Statement{SQL: sqlReadKey, Params: []string{"key"}}
	stCharge = Statement{SQL: ledger.SQLCharge, Params: []string{"account", "amount", "currency", "key", "attempt", "replica"}}
	stStore  = Statement{SQL: sqlStoreResponse, Params: []string{"key", "status", "body"}}
)

// PgTxFresh is pg-tx's transaction for a fresh key: the claim under the
// advisory lock and the read of the key row (with BEGIN), the charge, the
// stored response (with COMMIT). A load tool that replays it (pgbench)
// measures the SQL alone.
func PgTxFresh() Script {
	return Script{{stBegin, stClaim, stRead}, {stCharge}, {stStore, stCommit}}
}

// PgTxReplay is pg-tx's transaction for a retry of a completed key.
func PgTxReplay() Script {
	return Script{{stBegin, stClaim, stRead}, {stCommit}}
}
