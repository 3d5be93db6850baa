package scenarios

import (
	"slices"

	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// A lesson is a demo of what a client does when it retries: a client
// library re-sending a call behind its caller's back (DESIGN.md section
// 6), or a payment client's choice of key for its retry. Not an anomaly
// class of the server's checker, which sees only what such a retry leaves
// in the stores, but a trap every team meets.

// HiddenLesson names one hidden-retry lesson and what the room sees.
type HiddenLesson struct {
	Name, Shows string
}

// The hidden-retry lessons.
const (
	LessonGoRedisRetry = "go-redis-retry"
	LessonGoHTTPResend = "go-http-resend"
)

var hiddenLessons = []HiddenLesson{
	{LessonGoRedisRetry, "go-redis's default MaxRetries re-sends a SET NX whose reply was lost after Redis applied it: " +
		"the client that set the key gets false, nil, a key poisoned by itself"},
	{LessonGoHTTPResend, "Go's net/http Transport re-sends a POST carrying an Idempotency-Key when its reused " +
		"connection dies before any response byte: a second attempt the application never sent, charged again " +
		"without a key layer"},
	{LessonClientNewKey, "the same dropped answer after the commit, met by a client that keeps its key (the retry " +
		"gets the stored answer, one charge) and by one that makes a new key per try (the retry is a new payment: " +
		"charged twice)"},
}

// HTTPResendStrategies are the strategies the net/http lesson runs, in
// order: without a key layer the hidden re-send charges twice, with the
// reference one it replays.
func HTTPResendStrategies() []string { return []string{design.Baseline, design.Reference} }

// HiddenLessons lists the hidden-retry lessons.
func HiddenLessons() []HiddenLesson { return slices.Clone(hiddenLessons) }

// IsHiddenLesson reports whether name is a hidden-retry lesson.
func IsHiddenLesson(name string) bool {
	return slices.ContainsFunc(hiddenLessons, func(l HiddenLesson) bool { return l.Name == name })
}

// RedisRetry is what one SET NX of the go-redis lesson observed, on the
// wire, in Redis and at the caller.
type RedisRetry struct {
	MaxRetries int    `json:"max_retries"` // as set on the client (0: the library's default, 3)
	Applied    bool   `json:"applied"`     // Redis held the caller's token while its reply was held back
	Sets       int    `json:"sets"`        // SET commands the client put on the wire for the one call
	Dials      int    `json:"dials"`       // connections the client opened during the call
	Got        bool   `json:"got"`         // SET NX's result as the caller saw it
	Err        string `json:"err"`         // the call's error, "" for nil
	Holder     string `json:"holder"`      // whose token Redis holds afterwards: "the caller", or "nobody"
}

// HTTPResend is what one keyed POST of the net/http lesson observed: the
// application's one call, the transport's writes, the server's log, the
// ledger.
type HTTPResend struct {
	Strategy  string `json:"strategy"`
	Reused    bool   `json:"reused"`     // the POST went out on a reused keep-alive connection
	Writes    int    `json:"writes"`     // times the transport wrote the request (httptrace WroteRequest)
	ServerSaw int    `json:"server_saw"` // log entries of the attempt on the server
	Hidden    int    `json:"hidden"`     // attempts the harness's merge marked as hidden re-sends
	Charges   int    `json:"charges"`    // ledger charges for the key
	Status    int    `json:"status"`     // what the application got (0: an error)
	Replayed  bool   `json:"replayed"`   // the answer the application got was a replay
	Err       string `json:"err"`
}

// LessonClientNewKey is the client lesson: the other half of the
// contract, the key a client sends on its retry.
const LessonClientNewKey = "client-new-key"

// ClientLesson is the client lesson's plan: one operation, whose first
// try's answer is dropped after the charge committed.
func ClientLesson() workload.ClientPlan {
	p := workload.ClientDefaults
	p.Seed, p.Opening = 1, 1_000_000
	p.Ops = []workload.ClientOp{{ID: "op-01", Account: "acct-op-01", Amount: 2700, Currency: "usd",
		Faults: []workload.FrontFault{workload.DropAfterCommit}}}
	return p
}

// ClientLessonRun is one client of the client lesson, run: whether it
// makes a new key per try, what client mode recorded, and its judgement.
type ClientLessonRun struct {
	NewKeyPerTry bool         `json:"new_key_per_try"`
	Record       ClientRecord `json:"record"`
	Result       Result       `json:"result"`
}
