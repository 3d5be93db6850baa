package narrate

import (
	"sort"
	"strconv"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// story is the working state of one narration.
type story struct {
	rec      scenarios.Record
	res      scenarios.Result
	key      string // "" for a story about one request without a key
	mech     mechanism
	profile  api.Profile
	ops      []*opStory
	units    []*unit // by op, then unit number: the tie-break order
	replicas bool    // more than one replica: name them in sends

	charges       []history.Charge  // the story's ledger charges, in commit order
	label         map[string]string // charge id → "#n"
	chargeAttempt map[string]string // charge id → the attempt that made it

	findings  []check.Finding // the checker's findings about this story
	anomalies []check.Anomaly // in the checker's order
	gate      *gateStory
	heldBy    map[*unit]*unit // a held duplicate → the original it waited for
}

func newStory(rec scenarios.Record, res scenarios.Result) *story {
	s := &story{rec: rec, res: res, mech: mechanismOf(rec.Cell.Strategy), profile: rec.Cell.Profile,
		replicas: rec.Cell.Replicas > 1, label: map[string]string{}, chargeAttempt: map[string]string{}}
	if s.profile.Name == "" {
		s.profile = api.IETF
	}
	key, ids := pick(rec, res)
	s.key = key
	s.ops = buildOps(rec, key, ids)
	for _, o := range s.ops {
		for _, u := range o.units {
			u.rank = len(s.units)
			s.units = append(s.units, u)
			buildSteps(u)
		}
	}
	s.collectCharges()
	s.collectFindings()
	return s
}

// inStory reports whether an attempt id belongs to the story.
func (s *story) inStory(id string) bool { return s.unitOf(id) != nil }

// unitOf is the unit of an attempt id (a hidden re-send's marker ignored).
func (s *story) unitOf(id string) *unit {
	for _, u := range s.units {
		for _, a := range u.tries {
			if a.ID == id || baseID(a.ID) == baseID(id) {
				return u
			}
		}
	}
	return nil
}

// collectCharges numbers the story's charges in commit order, then any charge
// an answer names that the ledger does not hold.
func (s *story) collectCharges() {
	for _, c := range s.rec.Obs.Ledger.Charges {
		if (s.key != "" && c.Key == s.key) || (s.key == "" && c.Key == "" && s.inStory(c.AttemptID)) {
			s.charges = append(s.charges, c)
			s.chargeAttempt[c.ID] = c.AttemptID
		}
	}
	sort.Slice(s.charges, func(i, j int) bool { return s.charges[i].Seq < s.charges[j].Seq })
	for _, c := range s.charges {
		s.name(c.ID)
	}
	for _, u := range s.units {
		for _, a := range u.tries {
			s.name(a.ChargeID)
			if a.Server != nil {
				s.name(a.Server.ChargeID)
			}
		}
	}
	if s.key != "" {
		for _, r := range s.rec.Obs.Ledger.Redis {
			if r.Key == s.key {
				s.name(r.ChargeID)
			}
		}
	}
}

// name gives a charge id the next story label.
func (s *story) name(id string) {
	if id != "" && s.label[id] == "" {
		s.label[id] = "#" + strconv.Itoa(len(s.label)+1)
	}
}

// charge labels a charge id: "charge #1".
func (s *story) charge(id string) string {
	if l := s.label[id]; l != "" {
		return "charge " + l
	}
	return "a charge"
}

// collectFindings keeps the findings about the story's key or attempts.
func (s *story) collectFindings() {
	seen := map[check.Anomaly]bool{}
	for _, f := range s.res.Findings {
		if !s.about(f) {
			continue
		}
		s.findings = append(s.findings, f)
		seen[f.Anomaly] = true
	}
	for _, name := range check.Anomalies() {
		if seen[name] {
			s.anomalies = append(s.anomalies, name)
		}
	}
}

func (s *story) about(f check.Finding) bool {
	if f.Anomaly == check.Balance && f.Key == "" && len(s.ops) > 0 {
		return f.Account == s.ops[0].account // about the account the story charges
	}
	if s.key != "" {
		return f.Key == s.key
	}
	for _, id := range f.Attempts {
		if s.inStory(id) {
			return true
		}
	}
	return false
}

// redisRecord is the Redis record of the story's key, or nil.
func (s *story) redisRecord() *history.RedisRecord {
	for i, r := range s.rec.Obs.Ledger.Redis {
		if s.key != "" && r.Key == s.key {
			return &s.rec.Obs.Ledger.Redis[i]
		}
	}
	return nil
}
