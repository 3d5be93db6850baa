package innodb

import (
	"github.com/idemchaos/idemchaos/targets/strategy"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// ReplayInnoDB is where the InnoDB strategies replay a completed key from:
// its row in the InnoDB key table.
const ReplayInnoDB = "innodb"

// The steps of the InnoDB strategies, as the narration tells them
// (defined in design, where the narrator reads them).
const (
	InnoDBRead         = design.InnoDBRead
	InnoDBInsertNoWait = design.InnoDBInsertNoWait
	InnoDBInsert       = design.InnoDBInsert
	InnoDBInsertIgnore = design.InnoDBInsertIgnore
	InnoDBLockingRead  = design.InnoDBLockingRead
	InnoDBSessionLock  = design.InnoDBSessionLock
	InnoDBStore        = design.InnoDBStore
)

// Tx is innodb-tx, the reference design on InnoDB.
var Tx = design.Info{Name: "innodb-tx", MySQL: true,
	Mechanism:  "one InnoDB transaction: the key row's INSERT as the claim, not waiting (SET STATEMENT innodb_lock_wait_timeout=0: a duplicate in flight fails at once, 409), the charge in the same round trip, the response stored in the key row with the COMMIT; fingerprint checked",
	ReplayFrom: ReplayInnoDB, Steps: design.Steps{Check: InnoDBInsertNoWait, Store: InnoDBStore}}

// BlockingClaim is innodb-blocking-claim: innodb-tx with a plain INSERT.
var BlockingClaim = design.Info{Name: "innodb-blocking-claim", MySQL: true,
	Mechanism:  "as innodb-tx, but the claim is a plain INSERT of the key row, which waits on a duplicate an open transaction inserted (up to innodb_lock_wait_timeout, 50 s)",
	Flaw:       "held duplicate: a second request for a key in flight waits for the first, then replays; if the first rolls back, two waiting duplicates deadlock and one is answered 503",
	ReplayFrom: ReplayInnoDB, Steps: design.Steps{Check: InnoDBInsert, Store: InnoDBStore},
	// Held on every seed of these four: in concurrent-duplicates by its
	// hold probes (a first request held before its commit, a duplicate
	// sent meanwhile waits on its key row), whatever its barrier released
	// duplicates met.
	Fails: design.Declared{
		"concurrent-duplicates": {"held_duplicate"},
		"forced-race":           {"held_duplicate"},
		"client-timeout-retry":  {"held_duplicate"},
		"retry-storm":           {"held_duplicate"},
	},
	Explores: design.Declared{
		"duplicate":  {"held_duplicate"},
		"lost-reply": {"held_duplicate"},
	},
	NeverShows: design.Declared{"concurrent-duplicates": {"double_charge"}, "forced-race": {"double_charge"},
		"client-timeout-retry": {"double_charge"}, "retry-storm": {"double_charge"}},
}

// InsertIgnore is innodb-insert-ignore.
var InsertIgnore = design.Info{Name: "innodb-insert-ignore", MySQL: true,
	Mechanism:  "one REPEATABLE READ transaction: SELECT the key (absent), INSERT IGNORE it; when it was taken (0 rows) SELECT it again to answer from it, else charge; the response stored with INSERT ... ON DUPLICATE KEY UPDATE",
	Flaw:       "the second SELECT reads the snapshot of the first: a duplicate committed in between is taken but not seen, the missing row is taken for a released claim, and the request charges again and overwrites the first answer",
	ReplayFrom: ReplayInnoDB, Steps: design.Steps{Check: InnoDBRead, Claim: InnoDBInsertIgnore, Store: InnoDBStore},
	// The look-up then the claim is a check-then-act race whose loser does
	// not see the winner: every duplicate that looked before the winner
	// committed charges again (and waited on the winner's INSERT first),
	// and its answer overwrites the stored one. Measured over seeds 1-25
	// in the engine: each anomaly declared here on every seed (retry-storm
	// showed replay_mismatch on 23 of 25: not declared there). Under
	// client-timeout-retry the mismatch needs a later try to be replayed
	// the overwritten answer; on a loaded machine (load 15 to 22, make
	// test) the try that charged again was often the last, and three runs
	// of seed 1 in a row showed none: it varies.
	Fails: design.Declared{
		"concurrent-duplicates": {"double_charge", "replay_mismatch"},
		"forced-race":           {"double_charge", "replay_mismatch"},
		"client-timeout-retry":  {"double_charge"},
		"retry-storm":           {"double_charge"},
	},
	Varies: design.Declared{"client-timeout-retry": {"replay_mismatch"}},
	Explores: design.Declared{
		"duplicate":  {"double_charge", "replay_mismatch"},
		"mismatch":   {"double_charge", "mismatch_executed"},
		"lost-reply": {"double_charge"},
	},
}

// GetLock is innodb-get-lock.
var GetLock = design.Info{Name: "innodb-get-lock", MySQL: true,
	Mechanism:  "GET_LOCK(key, 0) on the pooled connection (taken: 409), then one transaction: read the key, charge, INSERT the key row with the response; RELEASE_LOCK after the COMMIT of a 2xx only",
	Flaw:       "GET_LOCK is the session's: a declined charge (402) returns its connection to the pool still holding the key's lock, and every retry on another connection gets 409 for as long as that connection lives",
	ReplayFrom: ReplayInnoDB, Steps: design.Steps{Check: InnoDBRead, Claim: InnoDBSessionLock, Store: InnoDBStore},
	// business-refusal sends the declined key's retry to the other
	// replica, whose connections cannot take the lock: 409 with nothing in
	// flight. On one replica the retries land on the connection that holds
	// it (a pool hands back the connection returned last) and replay the
	// 402, so only a retry from elsewhere shows it.
	Fails:      design.Declared{"business-refusal": {"stuck_key"}},
	NeverShows: design.Declared{"business-refusal": {"double_charge"}},
}

// SelectForUpdate is innodb-select-for-update.
var SelectForUpdate = design.Info{Name: "innodb-select-for-update", MySQL: true,
	Mechanism:  "one transaction: SELECT the key FOR UPDATE (a locking read); a row answers, none: charge and INSERT the key row with the response",
	Flaw:       "a locking read of a missing key locks the gap, and gap locks do not conflict: concurrent duplicates all find the key free, then each one's INSERT waits on another's gap lock, and InnoDB kills all but one (deadlock: 503); the gap is shared by the keys around it, so a request for another key is held or killed too",
	ReplayFrom: ReplayInnoDB, Steps: design.Steps{Check: InnoDBLockingRead, Store: InnoDBStore},
	// 6 duplicates released together, 20 times: every round one 201 and
	// five 503 (1213), no double charge. Measured over seeds 1-25 in the
	// engine: the 503s on every seed of these two. Where keys of their own
	// run side by side, whether two of them share a gap and deadlock
	// depends on how their statements meet (seeds 1-25, then 1-20 again):
	// client-timeout-retry showed them on 21 and 18, retry-storm on 22
	// and 20 (held duplicates too, a locking read waiting on a key row
	// inserted and not yet committed) and payload-mismatch, a request of
	// another key killed in the shared gap, on 11 and 11.
	Fails: design.Declared{
		"concurrent-duplicates": {"status_contract"},
		"forced-race":           {"status_contract"},
	},
	Explores: design.Declared{
		"duplicate":  {"held_duplicate", "status_contract"},
		"mismatch":   {"status_contract"},
		"lost-reply": {"held_duplicate"},
	},
	Varies: design.Declared{
		"payload-mismatch":     {"status_contract"},
		"client-timeout-retry": {"status_contract"},
		"retry-storm":          {"held_duplicate", "status_contract"},
	},
	NeverShows: design.Declared{"concurrent-duplicates": {"double_charge"}, "forced-race": {"double_charge"},
		"payload-mismatch": {"double_charge"}, "client-timeout-retry": {"double_charge"}, "retry-storm": {"double_charge"}},
}

// The designs register with their builders when the package is linked
// (the engine imports it): the catalog, the matrix and the reports know
// them from then on.
func init() {
	strategy.Register(Tx, NewTx)
	strategy.Register(BlockingClaim, NewBlockingClaim)
	strategy.Register(InsertIgnore, NewInsertIgnore)
	strategy.Register(GetLock, NewGetLock)
	strategy.Register(SelectForUpdate, NewSelectForUpdate)
}

// The builders of the designs: each builds on deps.MySQL.
func NewTx(d strategy.Deps) strategy.Strategy              { return txStrategy{deps: d} }
func NewBlockingClaim(d strategy.Deps) strategy.Strategy   { return txStrategy{deps: d, blocking: true} }
func NewInsertIgnore(d strategy.Deps) strategy.Strategy    { return insertIgnore{deps: d} }
func NewGetLock(d strategy.Deps) strategy.Strategy         { return getLock{deps: d} }
func NewSelectForUpdate(d strategy.Deps) strategy.Strategy { return selectForUpdate{deps: d} }
