package spec

import (
	"regexp"
	"slices"
	"time"

	"github.com/idemchaos/idemchaos/sim/workload"
)

var namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`)

// casePattern is the shape of an explore case's name: a kind, and a point
// or "answer" after an @.
var casePattern = regexp.MustCompile(`^[a-z][a-z-]{0,31}(@[a-z][a-z-]{0,31})?$`)

// Validate checks that the spec is possible and bounded, and that its name
// is none of reserved. The error is one line that starts with the field
// path, in the file's terms.
func (s Spec) Validate(reserved []string) error {
	validateText := func() error { return s.validateText(reserved) }
	for _, check := range []func() error{validateText, s.Accounts.validate, s.Traffic.validate,
		s.Retries.validate, s.Target.validate, s.validateFaults, s.validateTogether, s.validatePower, s.Explore.validate} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// validatePower checks the power and refuses it on a scenario that races
// nothing: only duplicates released together are hunted in rounds.
func (s Spec) validatePower() error {
	if err := s.Power.validate(); err != nil {
		return err
	}
	if (s.Power.Target > 0 || s.Power.Aim > 0 || s.Power.Budget > 0) && !s.Races() {
		return fieldErr("power", "needs duplicates released together (traffic.duplicates and traffic.together): only a race is hunted in rounds")
	}
	return nil
}

func (s Spec) validateText(reserved []string) error {
	switch {
	case s.Name == "":
		return fieldErr("name", "missing; a scenario needs a name")
	case !namePattern.MatchString(s.Name):
		return fieldErr("name", "%q must be 1 to 64 of a-z, 0-9 and '-', starting with a letter or digit", clip(s.Name, 70))
	case len(s.Doc) > maxText:
		return fieldErr("doc", "%d bytes; at most %d", len(s.Doc), maxText)
	case len(s.Reveals) > maxText:
		return fieldErr("reveals", "%d bytes; at most %d", len(s.Reveals), maxText)
	}
	if slices.Contains(reserved, s.Name) {
		return fieldErr("name", "%q is a built-in scenario; choose another name", s.Name)
	}
	return nil
}

func (a Accounts) validate() error {
	if err := intIn("accounts.count", int64(a.Count), 1, maxAccounts); err != nil {
		return err
	}
	return intIn("accounts.opening", a.Opening, 1, maxOpening)
}

func (t Traffic) validate() error {
	errs := []error{
		intIn("traffic.keys", int64(t.Keys), 1, workload.MaxOps),
		intIn("traffic.duplicates", int64(t.Duplicates), 0, maxDuplicates),
		durIn("traffic.spread", t.Spread, maxSpread, true),
		intIn("traffic.amount.min", t.Amount.Min, 1, maxAmount),
		intIn("traffic.amount.max", t.Amount.Max, t.Amount.Min, maxAmount),
		shareIn("traffic.changed_amount", t.ChangedAmount, true),
		shareIn("traffic.without_key", t.WithoutKey, true),
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	if n := t.requests(); n > workload.MaxOps {
		return fieldErr("traffic", "keys × (1 + duplicates) = %d requests; at most %d", n, workload.MaxOps)
	}
	if t.ChangedAmount > 0 && t.Duplicates == 0 {
		return fieldErr("traffic.changed_amount", "%g needs traffic.duplicates above 0: only a duplicate can change its amount", t.ChangedAmount)
	}
	return nil
}

// requests is the most requests the traffic sends (every payment keyed).
func (t Traffic) requests() int { return t.Keys * (1 + t.Duplicates) }

func (r Retries) validate() error {
	errs := []error{
		intIn("retries.max_tries", int64(r.MaxTries), 1, maxTries),
		durIn("retries.per_try_timeout", r.PerTryTimeout, maxPerTry, false),
		durIn("retries.backoff", r.Backoff, maxBackoff, false),
		durIn("retries.max_backoff", r.MaxBackoff, maxBackoff, false),
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	if r.Backoff > r.MaxBackoff {
		return fieldErr("retries.backoff", "%s is more than retries.max_backoff (%s)", fmtDur(r.Backoff.D()), fmtDur(r.MaxBackoff.D()))
	}
	return nil
}

func (t Target) validate() error {
	if err := intIn("target.replicas", int64(t.Replicas), 1, maxReplicas); err != nil {
		return err
	}
	if err := durIn("target.claim_ttl", t.ClaimTTL, maxClaimTTL, false); err != nil {
		return err
	}
	return durIn("target.key_ttl", t.KeyTTL, maxKeyTTL, false)
}

// validateTogether checks the cross-field rules: barriers need duplicates,
// the amounts must fit an account, and the run must stay short.
func (s Spec) validateTogether() error {
	t := s.Traffic
	switch {
	case t.Together && t.Duplicates == 0:
		return fieldErr("traffic.together", "needs traffic.duplicates above 0: a key sent once has nothing to race")
	case t.Duplicates > 0 && countOf(t.WithoutKey, t.Keys) == t.Keys:
		return fieldErr("traffic.without_key", "%g sends every payment without a key, so traffic.duplicates has nothing to send again", t.WithoutKey)
	case t.Amount.Min > s.Accounts.Opening:
		return fieldErr("traffic.amount.min", "%d is more than accounts.opening (%d): every charge would be refused", t.Amount.Min, s.Accounts.Opening)
	}
	if w := s.worstRunTime(); w.D() > maxRunTime {
		return fieldErr("retries", "a run could take %s (spread, then per chain of requests max_tries × (per_try_timeout + max_backoff)); at most %s",
			fmtDur(w.D().Round(time.Millisecond)), fmtDur(maxRunTime))
	}
	return nil
}

// worstRunTime bounds how long the client side of a run can take.
func (s Spec) worstRunTime() Duration {
	r := s.Retries
	chain := 1
	if !s.Traffic.Together {
		chain += s.Traffic.Duplicates
	}
	w := s.Traffic.Spread + Duration(chain*r.MaxTries)*(r.PerTryTimeout+r.MaxBackoff)
	if s.Probe {
		w += s.Target.ClaimTTL + s.Target.ClaimTTL/4 + r.PerTryTimeout
	}
	return w
}
