package check

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// defaultHammer is the shortest wait after a 409 that is a back-off.
const defaultHammer = 50 * time.Millisecond

// retryAfterSlack forgives a retry this much early after a Retry-After:
// the server stamps its answer before the client reads it.
const retryAfterSlack = 20 * time.Millisecond

// CheckClient judges a client under test (client mode) on what the server
// received from it, what it told its user and the ledger, under the
// contract p the server kept. It is pure, as Run is: the same run gives
// the same report. Its counts are the client anomalies'.
func CheckClient(run history.ClientRun, p api.Profile) Report {
	c := clientChecker{run: run, profile: p, hammer: cmp.Or(run.Hammer, defaultHammer),
		findings: make([][]Finding, numClient), byOp: map[string][]history.Received{}, charges: map[string][]history.Charge{}}
	c.index()
	for _, op := range run.Ops {
		c.checkOp(op)
	}
	c.checkKeys()
	return c.report()
}

type clientChecker struct {
	run         history.ClientRun
	profile     api.Profile
	hammer      time.Duration
	byOp        map[string][]history.Received // by arrival
	charges     map[string][]history.Charge   // by account
	told        map[string]history.Told       // the first line of each operation
	findings    [][]Finding
	overcharged int64
}

func (c *clientChecker) index() {
	for _, r := range c.run.Received {
		if r.Op != "" {
			c.byOp[r.Op] = append(c.byOp[r.Op], r)
		}
	}
	for op := range c.byOp {
		slices.SortStableFunc(c.byOp[op], func(a, b history.Received) int { return cmp.Compare(a.Arrived, b.Arrived) })
	}
	for _, ch := range c.run.Charges {
		c.charges[ch.Account] = append(c.charges[ch.Account], ch)
	}
	c.told = map[string]history.Told{}
	for _, t := range c.run.Told {
		if _, seen := c.told[t.Op]; !seen {
			c.told[t.Op] = t
		}
	}
}

func (c *clientChecker) add(rank int, f Finding) {
	f.Anomaly = clientBuiltin[rank].Anomaly
	c.findings[rank] = append(c.findings[rank], f)
}

// checkOp runs the checks of one operation's requests and report.
func (c *clientChecker) checkOp(op history.Operation) {
	reqs, charges := c.byOp[op.ID], c.charges[op.Account]
	extra := int64(max(0, len(charges)-1)) * op.Amount
	c.overcharged += extra
	c.checkKeysOf(op, reqs, charges, extra)
	c.checkPacing(op, reqs)
	c.checkRefusals(op, reqs)
	c.checkTold(op, charges)
}

// checkKeysOf finds an operation sent under several keys, or retried bare.
func (c *clientChecker) checkKeysOf(op history.Operation, reqs []history.Received, charges []history.Charge, extra int64) {
	var keys []string
	var firsts, bare []string
	for _, r := range reqs {
		if r.Key == "" && r.Try > 1 {
			bare = append(bare, r.ID)
		}
		if r.Key != "" && !slices.Contains(keys, r.Key) {
			keys, firsts = append(keys, r.Key), append(firsts, r.ID)
		}
	}
	moved := chargedWords(len(charges), op)
	if len(keys) > 1 {
		c.add(rankRetryNewKey, Finding{Key: keys[0], Account: op.Account, Money: extra, Attempts: firsts, Charges: chargeIDs(charges),
			Detail: fmt.Sprintf("%s was sent under %d keys (%s): %s", op.ID, len(keys), strings.Join(keys, ", "), moved)})
	}
	if len(bare) > 0 {
		c.add(rankRetryWithoutKey, Finding{Account: op.Account, Money: extra, Attempts: bare, Charges: chargeIDs(charges),
			Detail: fmt.Sprintf("%s was retried %s without a key: %s", op.ID, retried(len(bare)), moved)})
	}
}

// chargedWords says in words what an operation's charges came to.
func chargedWords(n int, op history.Operation) string {
	switch n {
	case 0:
		return "nothing was charged"
	case 1:
		return "it was charged once"
	}
	return fmt.Sprintf("it was charged %d times, %s too much", n, Money(int64(n-1)*op.Amount))
}

// checkPacing finds a retry at once after a 409, or before a Retry-After
// the client is known to have read (history.Received.ReadBefore: one that
// gave up on the answer, its timeout passed, never saw it).
func (c *clientChecker) checkPacing(op history.Operation, reqs []history.Received) {
	var fast, early []string
	for i := 1; i < len(reqs); i++ {
		prev, next := reqs[i-1], reqs[i]
		wait := next.Arrived - prev.Answered
		switch {
		case c.profile.InFlight != 0 && c.profile.IsInFlight(prev.Status) && wait < c.hammer:
			fast = append(fast, next.ID)
		case BeforeRetryAfter(prev, next) && prev.ReadBefore(next):
			early = append(early, next.ID)
		}
	}
	if len(fast) > 0 {
		c.add(rankNoBackoff, Finding{Account: op.Account, Attempts: fast,
			Detail: fmt.Sprintf("%s was retried %s less than %s after a %s", op.ID, retried(len(fast)), c.hammer, c.profile.InFlightSet())})
	}
	if len(early) > 0 {
		c.add(rankRetryAfterIgnored, Finding{Account: op.Account, Attempts: early,
			Detail: fmt.Sprintf("%s was retried %s before the Retry-After had passed", op.ID, retried(len(early)))})
	}
}

// BeforeRetryAfter reports whether next, a retry of prev's operation,
// came before the Retry-After prev's answer asked for had passed.
func BeforeRetryAfter(prev, next history.Received) bool {
	return prev.RetryAfter > 0 && next.Arrived-prev.Answered < time.Duration(prev.RetryAfter)*time.Second-retryAfterSlack
}

// checkRefusals finds a request re-sent unchanged after a final refusal.
func (c *clientChecker) checkRefusals(op history.Operation, reqs []history.Received) {
	var again []string
	for i, r := range reqs {
		if !c.final(r.Status) {
			continue
		}
		for _, later := range reqs[i+1:] {
			if later.Key == r.Key && later.Body == r.Body {
				again = append(again, later.ID)
			}
		}
	}
	if len(again) > 0 {
		slices.Sort(again)
		again = slices.Compact(again)
		c.add(rankRetryAfterRefusal, Finding{Account: op.Account, Attempts: again,
			Detail: fmt.Sprintf("%s was re-sent unchanged %s after a final refusal", op.ID, retried(len(again)))})
	}
}

// final reports whether a status refuses a request for good: one of the
// profile's mismatch statuses that is not also an in-flight one, or its
// missing-key status.
func (c *clientChecker) final(status int) bool {
	return status != 0 && (c.profile.IsMismatch(status) && !c.profile.IsInFlight(status) || status == c.profile.MissingKey)
}

// checkTold compares what the client told its user with the ledger.
func (c *clientChecker) checkTold(op history.Operation, charges []history.Charge) {
	t, ok := c.told[op.ID]
	switch {
	case !ok:
	case t.Outcome == history.Failed && len(charges) > 0:
		c.add(rankToldFailedCharged, Finding{Account: op.Account, Money: op.Amount, Charges: chargeIDs(charges),
			Detail: fmt.Sprintf("%s was told failed (%s) but %s on account %s", op.ID, cmp.Or(t.Detail, "no reason given"),
				Money(op.Amount), op.Account) + " was charged"})
	case t.Outcome == history.Succeeded && len(charges) == 0:
		c.add(rankToldSucceededUncharged, Finding{Account: op.Account, Money: op.Amount,
			Detail: fmt.Sprintf("%s was told succeeded but nothing was charged on account %s", op.ID, op.Account)})
	}
}

// checkKeys finds one key sent for two operations, or with two bodies.
func (c *clientChecker) checkKeys() {
	type use struct{ ops, bodies, ids []string }
	uses := map[string]*use{}
	var order []string
	for _, r := range c.run.Received {
		if r.Key == "" || r.Op == "" {
			continue
		}
		u := uses[r.Key]
		if u == nil {
			u = &use{}
			uses[r.Key], order = u, append(order, r.Key)
		}
		if !slices.Contains(u.ops, r.Op) {
			u.ops, u.ids = append(u.ops, r.Op), append(u.ids, r.ID)
		}
		if !slices.Contains(u.bodies, r.Body) {
			u.bodies = append(u.bodies, r.Body)
		}
	}
	for _, k := range order {
		u := uses[k]
		switch {
		case len(u.ops) > 1:
			c.add(rankKeyReused, Finding{Key: k, Attempts: u.ids,
				Detail: fmt.Sprintf("key %s was sent for %d operations (%s)", k, len(u.ops), strings.Join(u.ops, ", "))})
		case len(u.bodies) > 1:
			c.add(rankBodyChanged, Finding{Key: k,
				Detail: fmt.Sprintf("%s's key %s was sent with %d different bodies", u.ops[0], k, len(u.bodies))})
		}
	}
}

func chargeIDs(cs []history.Charge) []string {
	out := make([]string, len(cs))
	for i, ch := range cs {
		out[i] = ch.ID
	}
	return out
}

// report assembles the findings in their stable order: by anomaly, then
// by account (an operation's), then key.
func (c *clientChecker) report() Report {
	r := Report{Counts: make(map[Anomaly]int, numClient), Overcharged: c.overcharged, Findings: []Finding{}}
	for rank, fs := range c.findings {
		slices.SortStableFunc(fs, func(a, b Finding) int {
			return cmp.Or(cmp.Compare(a.Account, b.Account), cmp.Compare(a.Key, b.Key))
		})
		r.Counts[clientBuiltin[rank].Anomaly] = len(fs)
		r.Findings = append(r.Findings, fs...)
	}
	return r
}

// retried says how often: "once", "twice", "3 times".
func retried(n int) string {
	if n == 1 {
		return "once"
	}
	return times(n)
}
