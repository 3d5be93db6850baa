package innodb

import (
	"strings"

	innoledger "github.com/idemchaos/idemchaos/targets/ledger/innodb"
	"github.com/idemchaos/idemchaos/targets/strategy"
)

// innodb-tx's statements as a strategy.Script, for a load tool that
// replays them (mysqlslap in bench --compare), as strategy.PgTxFresh is
// pg-tx's for pgbench. Each entry is one round trip: its statements go
// to MariaDB as one multi-statement query, joined as RoundTrip joins them.
// The placeholders are ?, each named in order by the statement's Params:
// key, fingerprint, amount, account, currency, attempt, replica (the
// charge's, innoledger.ChargeArgs), status and body (the stored answer's).

// chargeParams name innoledger.ChargeArgs, in order.
var chargeParams = []string{"amount", "account", "currency", "amount",
	"account", "amount", "currency", "key", "attempt", "replica",
	"account"}

var (
	stStart    = strategy.Statement{SQL: "START TRANSACTION"}
	stCommit   = strategy.Statement{SQL: "COMMIT"}
	stRollback = strategy.Statement{SQL: "ROLLBACK"}
	stClaim    = strategy.Statement{SQL: sqlClaimNoWait, Params: []string{"key", "fingerprint"}}
	stStore    = strategy.Statement{SQL: sqlStoreAnswer, Params: []string{"status", "body", "key"}}
	stReadKey  = strategy.Statement{SQL: sqlReadKey, Params: []string{"key"}}
)

// TxFresh is what innodb-tx sends for a fresh key: START TRANSACTION, the
// claim and the charge (the debit, the charge row, its seq and the
// balance) in one round trip; the stored answer and COMMIT in the second.
func TxFresh() strategy.Script {
	return strategy.Script{append([]strategy.Statement{stStart, stClaim}, chargeStatements()...), {stStore, stCommit}}
}

// TxReplay is what innodb-tx sends for a retry of a completed key: the
// same first round trip, whose claim fails as a duplicate (1062) and so
// runs none of the statements after it; then the ROLLBACK and the read of
// the key's row, which answers.
func TxReplay() strategy.Script {
	return strategy.Script{append([]strategy.Statement{stStart, stClaim}, chargeStatements()...), {stRollback, stReadKey}}
}

// RoundTrip is the query one round trip of a Script sends: its statements
// joined as innodb-tx joins them.
func RoundTrip(trip []strategy.Statement) string {
	sql := make([]string, len(trip))
	for i, st := range trip {
		sql[i] = st.SQL
	}
	return strings.Join(sql, ";\n")
}

// chargeStatements are innoledger.SQLCharge's statements, each with the
// names of its own placeholders.
func chargeStatements() []strategy.Statement {
	var out []strategy.Statement
	params := chargeParams
	for _, sql := range strings.Split(innoledger.SQLCharge, ";\n") {
		n := strings.Count(sql, "?")
		out = append(out, strategy.Statement{SQL: sql, Params: params[:n:n]})
		params = params[n:]
	}
	return out
}
