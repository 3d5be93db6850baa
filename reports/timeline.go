package reports

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// tlView is one key's timeline laid out for the HTML page: one lane per
// actor (the client, the network, each replica, Postgres, Redis), one row
// per thing that happened there, its words beside its bar, positions in
// percent of the key's time span.
type tlView struct {
	ID, Key, Span, Facts string
	Ticks                []tlTick
	// Probes is where the probes begin, as a fraction of the span; empty:
	// none in the span. ProbesLeft puts its label left of the line, near
	// the right edge.
	Probes     string
	ProbesLeft bool
	Lanes      []tlLane
	Attempts   []tlAttempt
}

type tlTick struct{ Left, Label string }

// tlLane is one actor; Note says why it has no row.
type tlLane struct {
	Name, Sub, Note string
	Rows            []tlRow
}

// tlRow is one interval or instant on a lane: who, the payload, what
// happened (always written out), and its bar.
type tlRow struct {
	Who, Pay, What, Tag string
	Bar                 tlBar
}

// tlBar is a bar (Left, Width) or, Point, a mark at Left; Class names its
// meaning for the legend, Title repeats the row's words for a hover.
type tlBar struct {
	Class, Left, Width, Title string
	Point                     bool
}

// scale maps run times onto 0..100 percent of a key's span.
type scale struct{ t0, t1 time.Duration }

func (s scale) pos(t time.Duration) float64 {
	return min(max(float64(t-s.t0)/float64(s.t1-s.t0)*100, 0), 100)
}

// bar places an interval, at least 0.4 % wide so an instant stays visible.
func (s scale) bar(from, to time.Duration, class string) tlBar {
	left := min(s.pos(from), 99.6)
	width := max(s.pos(max(to, from))-left, 0.4)
	return tlBar{Class: class, Left: pct(left), Width: pct(min(width, 100-left))}
}

// point places an instant.
func (s scale) point(at time.Duration, class string) tlBar {
	return tlBar{Class: class, Left: pct(s.pos(at)), Point: true}
}

func pct(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }

func msText(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 1, 64) + " ms" }

// keyStory is a timeline's data with its attempts in send order and the
// lookups every lane needs.
type keyStory struct {
	t        scenarios.Timeline
	as       []history.Attempt
	byID     map[string]history.Attempt
	traced   map[string]bool          // attempts that reached some failpoint
	commitAt map[string]time.Duration // when an attempt reached after-commit
	s        scale
	placed   []placedFault
}

func storyOf(t scenarios.Timeline) keyStory {
	k := keyStory{t: t, as: append([]history.Attempt(nil), t.Attempts...), byID: map[string]history.Attempt{},
		traced: map[string]bool{}, commitAt: map[string]time.Duration{}}
	sort.SliceStable(k.as, func(i, j int) bool {
		if k.as[i].Call != k.as[j].Call {
			return k.as[i].Call < k.as[j].Call
		}
		return k.as[i].ID < k.as[j].ID
	})
	for _, a := range k.as {
		k.byID[a.ID] = a
	}
	for _, e := range t.Events {
		k.traced[e.Attempt] = true
		if _, ok := k.commitAt[e.Attempt]; !ok && e.Point == "after-commit" {
			k.commitAt[e.Attempt] = e.At
		}
	}
	k.s = k.span()
	k.placed = k.faults()
	return k
}

// span covers every attempt, client and server side, and every fault and hold.
func (k keyStory) span() scale {
	var ts []time.Duration
	for _, a := range k.as {
		ts = append(ts, a.Call, a.Return)
		if a.Server != nil {
			ts = append(ts, a.Server.Start, a.Server.End)
		}
	}
	for _, in := range k.t.Injected {
		if in.Reached {
			ts = append(ts, in.At)
		}
	}
	if h := k.t.Held; h != nil {
		ts = append(ts, h.From, h.To)
	}
	if len(ts) == 0 {
		return scale{0, time.Millisecond}
	}
	s := scale{ts[0], ts[0]}
	for _, t := range ts {
		s.t0, s.t1 = min(s.t0, t), max(s.t1, t)
	}
	if s.t1 <= s.t0 {
		s.t1 = s.t0 + time.Millisecond
	}
	return s
}

// layoutTimeline builds the lanes of one key. strategy, when a built-in
// one, says whether the key has a Redis lane at all.
func layoutTimeline(t scenarios.Timeline, id, strategy string) tlView {
	k := storyOf(t)
	v := tlView{ID: id, Key: t.Key, Span: msText(k.s.t0) + " to " + msText(k.s.t1) + " after the run started",
		Facts: k.facts(), Attempts: k.attemptRows()}
	for i := range 5 {
		at := k.s.t0 + (k.s.t1-k.s.t0)*time.Duration(i)/4
		v.Ticks = append(v.Ticks, tlTick{Left: pct(float64(i) * 25), Label: msText(at)})
	}
	if p := t.ProbesFrom; p > 0 && p > k.s.t0 && p < k.s.t1 {
		v.Probes, v.ProbesLeft = strconv.FormatFloat(k.s.pos(p)/100, 'f', 4, 64), k.s.pos(p) > 80
	}
	v.Lanes = append(v.Lanes, k.clientLane(), k.networkLane())
	v.Lanes = append(v.Lanes, k.replicaLanes()...)
	v.Lanes = append(v.Lanes, k.postgresLane())
	if l, ok := k.redisLane(strategy); ok {
		v.Lanes = append(v.Lanes, l)
	}
	return v
}

// facts sums up a key in a line: tries, charges, faults.
func (k keyStory) facts() string {
	parts := []string{counted(len(k.as), "try", "tries"), plural(len(k.t.Charges), "charge")}
	if f := k.faultList(); f != "" {
		parts = append(parts, "faults: "+f)
	}
	if h := k.t.Held; h != nil {
		parts = append(parts, "gate held "+h.Attempt)
	}
	return strings.Join(parts, " · ")
}

// faultList names the faults placed on the key: "drop-response (o1-t1),
// pg-cut@before-commit (o1-t1)".
func (k keyStory) faultList() string {
	var out []string
	for _, a := range k.as {
		if a.Fault != "" {
			out = append(out, a.Fault+" ("+a.ID+")")
		}
	}
	for _, in := range k.t.Injected {
		out = append(out, in.Inject.String()+" ("+in.Attempt+")")
	}
	return strings.Join(out, ", ")
}

func (k keyStory) clientLane() tlLane {
	l := tlLane{Name: "client", Sub: "each try, send to answer"}
	for i, a := range k.as {
		class := "o-" + string(a.Outcome)
		tag := ""
		switch {
		case a.Hidden:
			tag = "hidden re-send"
		case a.ReplayProbe:
			class, tag = class+" prb", "replay probe"
		case k.t.ProbesFrom > 0 && a.Call >= k.t.ProbesFrom:
			class, tag = class+" prb", "probe"
		}
		r := tlRow{Who: a.ID, Pay: k.payload(a, i), What: "try " + strconv.Itoa(a.Try) + " → " + answerText(a), Tag: tag,
			Bar: k.s.bar(a.Call, a.Return, class)}
		r.Bar.Title = attemptTitle(a)
		l.Rows = append(l.Rows, r)
	}
	if len(l.Rows) == 0 {
		l.Note = "no attempt of this key was recorded"
	}
	return l
}

// payload is what a try asked: its amount, and its account when it is not
// the first try's.
func (k keyStory) payload(a history.Attempt, i int) string {
	s := moneyOf(a.Amount)
	if i > 0 && a.Account != k.as[0].Account {
		s += " from " + a.Account
	}
	return s
}

// answerText is what a try got: the status and charge, or the error.
func answerText(a history.Attempt) string {
	answer := statusText(a.Status)
	if a.Status == 0 {
		answer = errWords(a.Err)
	}
	if answer == "" {
		answer = string(a.Outcome)
	}
	return joinNonEmpty(answer, a.ChargeID, flag(a.Replayed, "replayed"))
}

// errWords is the gist of a client error: its kind ("timeout") or the
// cause after the request it names (`Post "http://...": EOF`: "EOF").
func errWords(err string) string {
	if i := strings.Index(err, ": "); i > 0 && i <= 20 && !strings.Contains(err[:i], " ") {
		return err[:i]
	}
	if strings.HasPrefix(err, `Post "`) {
		if i := strings.Index(err, `": `); i > 0 {
			err = err[i+3:]
		}
	}
	return shorten(err, 48)
}

func attemptTitle(a history.Attempt) string {
	s := "attempt " + a.ID + " (op " + strconv.Itoa(a.Op) + ", try " + strconv.Itoa(a.Try) + ") to replica " +
		strconv.Itoa(a.Replica) + ": sent " + msText(a.Call) + ", returned " + msText(a.Return) + ", " + string(a.Outcome)
	if a.Err != "" {
		s += ", error: " + a.Err
	}
	if a.Server == nil {
		s += "; no server logged it"
	}
	return s + "; " + moneyOf(a.Amount) + " on account " + a.Account + ", fingerprint " + a.Fingerprint
}

// networkLane: the responses Toxiproxy dropped, and the re-sends the HTTP
// client made by itself.
func (k keyStory) networkLane() tlLane {
	l := tlLane{Name: "network", Sub: "Toxiproxy, client to replica", Note: "nothing dropped or re-sent on this key"}
	for _, a := range k.as {
		switch {
		case a.Fault != "":
			what := a.Fault + ": routed through the proxy that drops the answer on its way back; the client never sees it"
			l.Rows = append(l.Rows, k.row(a.ID, what, k.s.bar(a.Call, a.Return, "f-drop")))
		case a.Hidden:
			l.Rows = append(l.Rows, k.row(a.ID, "sent again by the HTTP client itself, not by the caller", k.s.bar(a.Call, a.Return, "f-hid")))
		}
	}
	return l
}

func (k keyStory) row(who, what string, b tlBar) tlRow { return tlRow{Who: who, What: what, Bar: b} }

// replicaLanes: what each replica's server logged, one lane per replica,
// each attempt followed by the delay injected in its handler and the
// gate's hold of it.
func (k keyStory) replicaLanes() []tlLane {
	extras := map[string][]tlRow{}
	for _, f := range k.placed {
		if f.lane == laneReplica {
			extras[f.row.Who] = append(extras[f.row.Who], f.row)
		}
	}
	if h := k.t.Held; h != nil {
		until := "until the gate timed out"
		switch {
		case h.By != "" && h.Until == "":
			until = "until " + h.By + " was answered"
		case h.By != "":
			until = "until " + h.By + " reached " + h.Until
		}
		what := "held by the gate at " + h.Point + " " + until + " (" + spanText(h.To-h.From) + ")"
		extras[h.Attempt] = append(extras[h.Attempt], k.row(h.Attempt, what, k.s.bar(h.From, h.To, "f-hold")))
	}
	byReplica := map[int]*tlLane{}
	var order []int
	add := func(replica int, rows ...tlRow) {
		l, ok := byReplica[replica]
		if !ok {
			l = &tlLane{Name: "replica " + strconv.Itoa(replica), Sub: "the server's handler"}
			byReplica[replica] = l
			order = append(order, replica)
		}
		l.Rows = append(l.Rows, rows...)
	}
	for _, a := range k.as {
		replica := a.Replica
		if sv := a.Server; sv != nil {
			replica = sv.Replica
			what := "handled → " + joinNonEmpty(statusText(sv.Status), sv.ChargeID, flag(sv.Replayed, "replayed"))
			add(replica, k.row(a.ID, what, k.s.bar(sv.Start, sv.End, statusClass(sv.Status))))
		}
		if rows := extras[a.ID]; len(rows) > 0 {
			add(replica, rows...)
			delete(extras, a.ID)
		}
	}
	sort.Ints(order)
	out := make([]tlLane, 0, len(order))
	for _, r := range order {
		out = append(out, *byReplica[r])
	}
	return out
}

// postgresLane: the faults on the link to Postgres and the charges, each
// where its attempt committed; the first is the legitimate one.
func (k keyStory) postgresLane() tlLane {
	l := tlLane{Name: "Postgres", Sub: "the ledger and its link", Note: "no charge and no fault on this key"}
	for _, f := range k.placed {
		if f.lane == lanePostgres {
			l.Rows = append(l.Rows, f.row)
		}
	}
	cs := append([]history.Charge(nil), k.t.Charges...)
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Seq < cs[j].Seq })
	for i, c := range cs {
		at, by := k.s.t1, "by attempt "+c.AttemptID+", not in the history"
		if c.AttemptID == "" {
			by = "by an unrecorded attempt"
		}
		if a, ok := k.byID[c.AttemptID]; ok {
			at, by = a.Return, "by "+a.ID
			if a.Server != nil {
				at = a.Server.End
			}
			if t, ok := k.commitAt[a.ID]; ok {
				at = t
			}
		}
		class, what := "ch", "the charge, "+by+" (commit #"+strconv.FormatInt(c.Seq, 10)+")"
		if i > 0 {
			class, what = "ch2", "an extra charge for the key (its "+ordinal(i+1)+"), "+by+" (commit #"+strconv.FormatInt(c.Seq, 10)+")"
		}
		r := k.row(c.ID, what, k.s.point(at, class))
		r.Pay = moneyOf(c.Amount)
		if c.Account != "" && len(k.as) > 0 && c.Account != k.as[0].Account {
			r.Pay += " from " + c.Account
		}
		l.Rows = append(l.Rows, r)
	}
	return l
}

// redisLane: the faults on the link to Redis and the record read after the
// run. Without either, only a built-in strategy that keeps its records in
// Redis has the lane (their absence is evidence).
func (k keyStory) redisLane(strategy string) (tlLane, bool) {
	l := tlLane{Name: "Redis", Sub: "idempotency records and the link", Note: "no record found in Redis after the run"}
	for _, f := range k.placed {
		if f.lane == laneRedis {
			l.Rows = append(l.Rows, f.row)
		}
	}
	if r := k.t.Redis; r != nil {
		state := "an in-flight claim"
		if r.Done {
			state = joinNonEmpty("done", statusText(r.Status), r.ChargeID)
		}
		ttl := "no TTL"
		if r.TTL >= 0 {
			ttl = "TTL " + spanText(r.TTL)
		}
		l.Rows = append(l.Rows, k.row("record", "after the run: "+joinNonEmpty(state, ttl), k.s.point(k.s.t1, "rec")))
	}
	if len(l.Rows) > 0 {
		return l, true
	}
	info, err := design.Lookup(strategy) // a user's service: its Redis, if any, is not read
	return l, err == nil && info.Redis
}

// spanText is a duration in the page's words: "15.3 ms", "1.5s", "24h".
func spanText(d time.Duration) string {
	switch {
	case d < time.Second:
		return msText(d)
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	case d >= time.Hour:
		d = d.Round(time.Minute)
	}
	s := d.Round(time.Second).String()
	s = strings.TrimSuffix(s, "0s")
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// ordinal is "2nd", "3rd", "11th".
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

// tlAttempt is one row of a timeline's table of attempts, the raw record.
type tlAttempt struct {
	ID, OpTry, Pay, Times, Server, Answer, Outcome, Charge, Flags, Faults, Body string
}

// maxBody bounds the response body a table row shows; the JSON keeps it.
const maxBody = 240

func (k keyStory) attemptRows() []tlAttempt {
	injected := map[string][]string{}
	for _, in := range k.t.Injected {
		injected[in.Attempt] = append(injected[in.Attempt], in.Inject.String())
	}
	out := make([]tlAttempt, 0, len(k.as))
	for _, a := range k.as {
		r := tlAttempt{ID: a.ID, OpTry: strconv.Itoa(a.Op) + "/" + strconv.Itoa(a.Try), Pay: moneyOf(a.Amount) + " · " + a.Account,
			Times: msText(a.Call) + " → " + msText(a.Return), Server: "not logged", Answer: joinNonEmpty(statusText(a.Status), a.Err),
			Outcome: string(a.Outcome), Charge: a.ChargeID, Flags: attemptFlags(a),
			Faults: strings.Join(append([]string{a.Fault}, injected[a.ID]...), " "), Body: shorten(a.Body, maxBody)}
		if sv := a.Server; sv != nil {
			r.Server = "replica " + strconv.Itoa(sv.Replica) + ": " + msText(sv.Start) + " → " + msText(sv.End) + ", " + statusText(sv.Status)
		}
		r.Faults = strings.TrimSpace(r.Faults)
		out = append(out, r)
	}
	return out
}
