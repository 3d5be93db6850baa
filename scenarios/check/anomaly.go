package check

import "strings"

// Anomaly names one invariant the checker finds broken; the name is what
// reports and the JSON say ("double_charge").
type Anomaly string

// The anomalies.
const (
	// DoubleCharge: more than one ledger charge for one (account, key).
	DoubleCharge Anomaly = "double_charge"
	// LostAck: a 2xx without exactly one matching ledger charge.
	LostAck Anomaly = "lost_ack"
	// ReplayMismatch: 2xx answers for one key and payload disagree on status, charge id or body.
	ReplayMismatch Anomaly = "replay_mismatch"
	// MismatchExecuted: a request whose payload differs from the key's was acked or charged.
	MismatchExecuted Anomaly = "mismatch_executed"
	// Balance: an account balance differs from opening balance minus its charges.
	Balance Anomaly = "balance"
	// StatusContract: a status code the contract profile does not allow.
	StatusContract Anomaly = "status_contract"
	// StuckKey: a probe of a key still got the profile's in-flight status
	// (409): the key's claim was never released, the key is poisoned.
	StuckKey Anomaly = "stuck_key"
	// StoreDesync: the Redis idempotency records and the Postgres ledger
	// disagree about a key (checked only for two-store targets).
	StoreDesync Anomaly = "store_desync"
	// CachedError: a 5xx replayed from a key's stored response (or served to
	// a probe) where the profile forbids it, or where the ledger shows the
	// key's work did commit.
	CachedError Anomaly = "cached_error"
	// HeldDuplicate: a same-payload duplicate that arrived while the key's
	// original was executing was held until the original finished, then
	// answered its 2xx, where the profile wants the in-flight status at once.
	HeldDuplicate Anomaly = "held_duplicate"
	// RefusalNotReplayed: a key declined with the business refusal (402)
	// was answered otherwise on a same-payload retry, or charged: a
	// declined charge is a completed result, as a 2xx is. A profile that
	// decides refusals again reports it as a deviation instead.
	RefusalNotReplayed Anomaly = "refusal_not_replayed"
)

// Kind is what an anomaly costs, in the order a report asks to fix them.
type Kind int

// The kinds of anomaly, the gravest first.
const (
	// KindMoney: money moved where it must not have (or the ledger and what
	// the client was told disagree), or will at the next retry.
	KindMoney Kind = iota
	// KindHold: every duplicate holds a connection, a worker and a client for
	// as long as the slowest charge: no money lost, a storm waiting.
	KindHold
	// KindContract: the service answers what its contract forbids (a wrong
	// replay, a poisoned key, a status) without moving money.
	KindContract
)

// catalog is every anomaly in its stable order (a finding's rank is its
// index), with the short code matrix cells use and its kind.
var catalog = [...]struct {
	anomaly Anomaly
	short   string
	kind    Kind
}{
	{DoubleCharge, "dc", KindMoney}, {LostAck, "la", KindMoney}, {ReplayMismatch, "rm", KindContract},
	{MismatchExecuted, "me", KindMoney}, {Balance, "bal", KindMoney}, {StatusContract, "sc", KindContract},
	{StuckKey, "sk", KindContract}, {StoreDesync, "sd", KindMoney}, {CachedError, "ce", KindContract},
	{HeldDuplicate, "hd", KindHold}, {RefusalNotReplayed, "rf", KindContract},
}

// ByUrgency returns every anomaly in the order a report asks to fix them:
// money first, then holds, then the contract; within a kind, the stable
// order.
func ByUrgency() []Anomaly {
	var out []Anomaly
	for _, k := range []Kind{KindMoney, KindHold, KindContract} {
		for _, e := range catalog {
			if e.kind == k {
				out = append(out, e.anomaly)
			}
		}
	}
	return out
}

// The ranks, in catalog order.
const (
	rankDoubleCharge = iota
	rankLostAck
	rankReplayMismatch
	rankMismatchExecuted
	rankBalance
	rankStatusContract
	rankStuckKey
	rankStoreDesync
	rankCachedError
	rankHeldDuplicate
	rankRefusalNotReplayed
	numAnomalies
)

// Anomalies returns every anomaly the checker knows, in its stable order.
func Anomalies() []Anomaly {
	out := make([]Anomaly, len(catalog))
	for i, e := range catalog {
		out[i] = e.anomaly
	}
	return out
}

// Names returns the names of every anomaly, in the same order.
func Names() []string {
	out := make([]string, len(catalog))
	for i, e := range catalog {
		out[i] = string(e.anomaly)
	}
	return out
}

// Short is the anomaly's code in a matrix cell ("dc"); a name the checker
// does not know is its own code.
func (a Anomaly) Short() string {
	for _, e := range catalog {
		if e.anomaly == a {
			return e.short
		}
	}
	return string(a)
}

// String is the anomaly's name.
func (a Anomaly) String() string { return string(a) }

// Join writes anomalies as "a, b".
func Join(as []Anomaly) string {
	names := make([]string, len(as))
	for i, a := range as {
		names[i] = string(a)
	}
	return strings.Join(names, ", ")
}
