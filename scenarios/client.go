package scenarios

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// ClientScenario names the scenario of a client mode run in its shape
// ("client/json"): a result's column.
func ClientScenario(shape string) string { return clientPrefix + shape }

const clientPrefix = "client/"

// IsClientScenario reports whether a result's scenario is a run of client
// mode.
func IsClientScenario(name string) bool { return strings.HasPrefix(name, clientPrefix) }

// ClientRecord is what a run of client mode observed: the plan, what the
// server received, what the client said, the ledger; and how the client's
// process ended. It is the whole input of JudgeClient, and what a run
// directory keeps (client.json) for `check DIR`.
type ClientRecord struct {
	Name    string              `json:"name"`    // the client's name in the results
	Command string              `json:"command"` // its command line, for the repro
	Shape   string              `json:"shape"`
	Profile api.Profile         `json:"profile"`
	Plan    workload.ClientPlan `json:"plan"`
	Run     history.ClientRun   `json:"run"`
	// Beyond counts the requests past the front's bound, not recorded.
	Beyond int `json:"beyond,omitempty"`
	// Exit is how the client's process ended ("exit status 1", "killed
	// at the run's bound"); "": it exited 0.
	Exit string `json:"exit,omitempty"`
	// Unread are the lines that named an operation and could not be read
	// as its outcome.
	Unread   []string      `json:"unread,omitempty"`
	Duration time.Duration `json:"duration_ns"`
}

// ClientName is a client's name from its command line: the base name of
// its script (the last argument that names a file), else of its program.
func ClientName(command []string) string {
	for i := len(command) - 1; i > 0; i-- {
		if strings.ContainsAny(command[i], "./") && !strings.HasPrefix(command[i], "-") {
			return filepath.Base(command[i])
		}
	}
	if len(command) == 0 {
		return "client"
	}
	return filepath.Base(command[0])
}

// Operations are a client plan's operations, as the checker reads them.
func Operations(p workload.ClientPlan) []history.Operation {
	out := make([]history.Operation, len(p.Ops))
	for i, o := range p.Ops {
		out[i] = history.Operation{ID: o.ID, Account: o.Account, Amount: o.Amount, Currency: o.Currency}
	}
	return out
}

// ParseTold reads one line a client under test printed: "OP succeeded
// [detail]" or "OP failed [detail]", OP one of ops. ok false: the line
// names no operation (a log line of the client's, ignored); err: it names
// one, and says nothing that can be read as its outcome.
func ParseTold(line string, ops []history.Operation, at time.Duration) (history.Told, bool, error) {
	fields := strings.Fields(line)
	if len(fields) == 0 || !slices.ContainsFunc(ops, func(o history.Operation) bool { return o.ID == fields[0] }) {
		return history.Told{}, false, nil
	}
	t := history.Told{Op: fields[0], At: at}
	if len(fields) > 1 {
		t.Outcome = fields[1]
		t.Detail = strings.Join(fields[2:], " ")
	}
	if t.Outcome != history.Succeeded && t.Outcome != history.Failed {
		return t, true, fmt.Errorf("%q: want %q then %s or %s", line, t.Op, history.Succeeded, history.Failed)
	}
	return t, true, nil
}

// JudgeClient checks a client mode run and gives its result: fail when
// the client broke its half of the contract, inconclusive when the run
// cannot show it kept it (an operation never sent or never reported, a
// fault never met, a line that could not be read), else pass.
func JudgeClient(rec ClientRecord) Result {
	rep := check.CheckClient(rec.Run, rec.Profile)
	r := Result{Strategy: rec.Name, Scenario: ClientScenario(rec.Shape), Seed: rec.Plan.Seed, Profile: rec.Profile.Name,
		Replicas: 1, Anomalies: rep.Counts, Overcharged: rep.Overcharged, Currency: "usd",
		Requests: len(rec.Run.Received) + rec.Beyond, DurationMS: rec.Duration.Milliseconds(), Findings: rep.Findings,
		Service: true, Repro: clientRepro(rec), Exercise: clientExercise}
	r.Assumptions = clientAssumptions(rec)
	r.Exercised = len(r.Assumptions) == 0
	met := metFaults(rec.Run.Received)
	r.Faults, r.FaultsMet = plannedFaults(rec.Plan), &met
	switch {
	case rep.Failed():
		r.Verdict = Fail
	case len(r.Assumptions) > 0:
		r.Verdict = Inconclusive
	default:
		r.Verdict = Pass
	}
	r.AsExpected = r.Verdict == Pass
	return r
}

// clientExercise is what a client mode run is about.
const clientExercise = "every operation sent and reported, every fault met"

func clientRepro(rec ClientRecord) string {
	return fmt.Sprintf("idemchaos client --shape %s --seed %d --ops %d -- %s", rec.Shape, rec.Plan.Seed, len(rec.Plan.Ops), rec.Command)
}

// clientAssumptions says, a line each, what keeps the run from showing
// the client kept its half.
func clientAssumptions(rec ClientRecord) []string {
	var out []string
	sent, told := map[string]bool{}, map[string]bool{}
	for _, r := range rec.Run.Received {
		sent[r.Op] = true
	}
	for _, t := range rec.Run.Told {
		told[t.Op] = true
	}
	var unsent, untold []string
	for _, o := range rec.Plan.Ops {
		if !sent[o.ID] {
			unsent = append(unsent, o.ID)
		}
		if !told[o.ID] {
			untold = append(untold, o.ID)
		}
	}
	if len(unsent) > 0 {
		out = append(out, fmt.Sprintf("the client sent no request for %s", listed(unsent)))
	}
	if len(untold) > 0 {
		out = append(out, fmt.Sprintf("the client printed no outcome for %s (want a line \"OP succeeded\" or \"OP failed\")%s",
			listed(untold), exitNote(rec.Exit)))
	}
	if missed := unmetFaults(rec.Run.Received); len(missed) > 0 {
		out = append(out, "no request met the faults "+strings.Join(missed, ", "))
	}
	if unreadRetryAfters(rec.Run.Received) {
		out = append(out, "no Retry-After was known to be read: the client retried early on a new connection after closing "+
			"the one each refusal came on (it may have given up on the answer, its timeout passed)")
	}
	for _, u := range rec.Unread {
		out = append(out, "unreadable outcome "+u)
	}
	return out
}

func exitNote(exit string) string {
	if exit == "" {
		return ""
	}
	return "; it ended: " + exit
}

// listed names up to five operations.
func listed(ops []string) string {
	if len(ops) > 5 {
		return fmt.Sprintf("%s and %d more", strings.Join(ops[:5], ", "), len(ops)-5)
	}
	return strings.Join(ops, ", ")
}

// unreadRetryAfters reports whether some retries came before a
// Retry-After the client is not known to have read
// (history.Received.ReadBefore) and no other showed how the client keeps
// one (read, or waited for).
func unreadRetryAfters(rs []history.Received) bool {
	last := map[string]history.Received{} // by operation: its latest request so far
	shown, unread := 0, 0
	for _, r := range rs {
		prev, ok := last[r.Op]
		last[r.Op] = r
		switch {
		case !ok || r.Op == "" || prev.RetryAfter == 0:
		case check.BeforeRetryAfter(prev, r) && !prev.ReadBefore(r):
			unread++
		default:
			shown++
		}
	}
	return unread > 0 && shown == 0
}

// unmetFaults are the front's faults no request met.
func unmetFaults(rs []history.Received) []string {
	var out []string
	for _, f := range workload.FrontFaults {
		if !slices.ContainsFunc(rs, func(r history.Received) bool { return r.Fault == string(f) }) {
			out = append(out, string(f))
		}
	}
	return out
}

// plannedFaults counts the tries the plan gives a fault.
func plannedFaults(p workload.ClientPlan) int {
	n := 0
	for _, o := range p.Ops {
		n += len(o.Faults)
	}
	return n
}

// metFaults counts the requests that met a fault: each met the one the
// plan gave its try.
func metFaults(rs []history.Received) int {
	n := 0
	for _, r := range rs {
		if r.Fault != "" {
			n++
		}
	}
	return n
}
