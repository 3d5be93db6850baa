package reports

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/history"
)

// tlView is one key's timeline laid out for the HTML page: one lane per
// actor, positions in percent of the key's time span.
type tlView struct {
	Key      string
	Span     string
	Ticks    []tlTick
	Lanes    []tlLane
	Attempts []history.Attempt
}

type tlTick struct{ Left, Label string }

// tlLane is one actor; each bar gets a row of its own so labels never overlap.
type tlLane struct {
	Name, Class, Note string
	Bars              []tlBar
}

// tlBar is one interval (or, narrow, one instant) on a lane.
type tlBar struct {
	Left, Width, Label, Title, Class string
	// LabelAt places the label: from the bar's end rightwards, or, when Flip,
	// from its start leftwards (LabelAt is then a right offset).
	LabelAt string
	Flip    bool
	// Inside puts the label over the bar, when neither side has room.
	Inside bool
}

// scale maps run times onto 0..100 percent of a key's span.
type scale struct{ t0, t1 time.Duration }

func (s scale) pos(t time.Duration) float64 {
	return float64(t-s.t0) / float64(s.t1-s.t0) * 100
}

// bar places an interval, with a minimum width so instants stay visible.
func (s scale) bar(from, to time.Duration, label, title, class string) tlBar {
	left := min(max(s.pos(from), 0), 99.5)
	width := min(max(s.pos(max(to, from))-left, 0.5), 100-left)
	b := tlBar{Left: pct(left), Width: pct(width), Label: label, Title: title, Class: class, LabelAt: pct(left + width)}
	switch after := 100 - left - width; {
	case left < minLabelRoom && after < minLabelRoom:
		b.Inside, b.LabelAt = true, pct(left)
	case left > after: // more room before the bar than after it
		b.Flip, b.LabelAt = true, pct(100-left)
	}
	return b
}

// minLabelRoom is the share of the track (percent) a label needs beside its bar.
const minLabelRoom = 30

func pct(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }

func msText(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 1, 64) + " ms" }

// layoutTimeline builds the lanes of one key: client attempts, proxy and
// faults, one server lane per replica, Postgres charges placed where the
// attempt that made them ended on the server, and the Redis record read after
// the run.
func layoutTimeline(t scenarios.Timeline) tlView {
	as := append([]history.Attempt(nil), t.Attempts...)
	sort.SliceStable(as, func(i, j int) bool {
		if as[i].Call != as[j].Call {
			return as[i].Call < as[j].Call
		}
		return as[i].ID < as[j].ID
	})
	s := spanOf(as)
	v := tlView{Key: t.Key, Span: msText(s.t0) + " – " + msText(s.t1) + " after the run started", Attempts: as}
	for i := range 5 {
		at := s.t0 + (s.t1-s.t0)*time.Duration(i)/4
		v.Ticks = append(v.Ticks, tlTick{Left: pct(float64(i) * 25), Label: msText(at)})
	}
	v.Lanes = append(v.Lanes, clientLane(s, as), proxyLane(s, as))
	v.Lanes = append(v.Lanes, replicaLanes(s, as)...)
	v.Lanes = append(v.Lanes, postgresLane(s, as, t.Charges), redisLane(s, t.Redis))
	return v
}

// spanOf is the interval covering every attempt, client and server side.
func spanOf(as []history.Attempt) scale {
	if len(as) == 0 {
		return scale{0, time.Millisecond}
	}
	s := scale{as[0].Call, as[0].Call}
	for _, a := range as {
		s.t0, s.t1 = min(s.t0, a.Call), max(s.t1, a.Return, a.Call)
		if a.Server != nil {
			s.t0, s.t1 = min(s.t0, a.Server.Start), max(s.t1, a.Server.End)
		}
	}
	if s.t1 <= s.t0 {
		s.t1 = s.t0 + time.Millisecond
	}
	return s
}

func clientLane(s scale, as []history.Attempt) tlLane {
	l := tlLane{Name: "client", Class: "client"}
	for _, a := range as {
		class := "o-" + string(a.Outcome)
		if a.Hidden {
			class += " hidden"
		}
		l.Bars = append(l.Bars, s.bar(a.Call, a.Return, attemptLabel(a), attemptTitle(a), class))
	}
	return l
}

func proxyLane(s scale, as []history.Attempt) tlLane {
	l := tlLane{Name: "proxy / fault", Class: "proxy", Note: "no fault placed on this key"}
	for _, a := range as {
		var what []string
		if a.Fault != "" {
			what = append(what, "fault "+a.Fault)
		}
		if a.Hidden {
			what = append(what, "hidden re-send by the HTTP client")
		}
		if len(what) > 0 {
			label := a.ID + ": " + strings.Join(what, ", ")
			l.Bars = append(l.Bars, s.bar(a.Call, a.Return, label, label, "fault"))
		}
	}
	return l
}

// replicaLanes draws what each replica's server logged, one lane per replica.
func replicaLanes(s scale, as []history.Attempt) []tlLane {
	byReplica := map[int]*tlLane{}
	var order []int
	for _, a := range as {
		sv := a.Server
		if sv == nil {
			continue
		}
		l, ok := byReplica[sv.Replica]
		if !ok {
			l = &tlLane{Name: fmt.Sprintf("replica %d server", sv.Replica), Class: "server"}
			byReplica[sv.Replica] = l
			order = append(order, sv.Replica)
		}
		label := joinNonEmpty(a.ID, strconv.Itoa(sv.Status), sv.ChargeID, flag(sv.Replayed, "replayed"))
		title := fmt.Sprintf("attempt %s on replica %d: %s to %s, status %d", a.ID, sv.Replica, msText(sv.Start), msText(sv.End), sv.Status)
		l.Bars = append(l.Bars, s.bar(sv.Start, sv.End, label, title, statusClass(sv.Status)))
	}
	sort.Ints(order)
	out := make([]tlLane, 0, len(order))
	for _, r := range order {
		out = append(out, *byReplica[r])
	}
	return out
}

// postgresLane places each charge at the server end of the attempt that made it.
func postgresLane(s scale, as []history.Attempt, cs []history.Charge) tlLane {
	l := tlLane{Name: "Postgres ledger", Class: "postgres", Note: "no charge for this key"}
	byID := map[string]history.Attempt{}
	for _, a := range as {
		byID[a.ID] = a
	}
	cs = append([]history.Charge(nil), cs...)
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Seq < cs[j].Seq })
	class := "charge"
	if len(cs) > 1 {
		class += " dup"
	}
	for _, c := range cs {
		at, by := s.t1, "attempt "+c.AttemptID+" not in the history"
		if a, ok := byID[c.AttemptID]; ok {
			at, by = a.Return, "by "+a.ID
			if a.Server != nil {
				at = a.Server.End
			}
		}
		label := joinNonEmpty(c.ID, Money(c.Amount), "seq "+strconv.FormatInt(c.Seq, 10), by)
		title := fmt.Sprintf("charge %s: %s on account %s, commit #%d, %s", c.ID, Money(c.Amount), c.Account, c.Seq, by)
		l.Bars = append(l.Bars, s.bar(at, at, label, title, class))
	}
	return l
}

// redisLane shows the Redis record as read after the run, at the right edge.
func redisLane(s scale, r *history.RedisRecord) tlLane {
	l := tlLane{Name: "Redis record", Class: "redis", Note: "no record found in Redis after the run"}
	if r == nil {
		return l
	}
	state := "in-flight claim"
	if r.Done {
		state = joinNonEmpty("done", statusText(r.Status), r.ChargeID)
	}
	ttl := "no TTL"
	if r.TTL >= 0 {
		ttl = "TTL " + r.TTL.String()
	}
	label := joinNonEmpty("after the run: "+state, ttl)
	title := label + ", fingerprint " + r.Fingerprint
	l.Bars = append(l.Bars, s.bar(s.t1, s.t1, label, title, "record"))
	return l
}
