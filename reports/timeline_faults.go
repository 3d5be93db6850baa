package reports

import "github.com/idemchaos/idemchaos/targets/api"

// faultLane is the lane an in-target fault is drawn on: where it happened.
type faultLane int

const (
	laneReplica  faultLane = iota // a delay in the handler
	lanePostgres                  // a cut or latency on the link to Postgres
	laneRedis                     // a cut on the link to Redis
)

// placedFault is an in-target fault laid out on its lane.
type placedFault struct {
	lane    faultLane
	replica int
	row     tlRow
}

// faults lays out the in-target faults the plan placed on the key's
// attempts: each from the moment its attempt reached the fault's point;
// cuts and latency last until the request ends (the harness heals them
// then), a delay as long as it is.
func (k keyStory) faults() []placedFault {
	var out []placedFault
	for _, in := range k.t.Injected {
		a := k.byID[in.Attempt]
		end := a.Return
		if a.Server != nil {
			end = a.Server.End
		}
		f := placedFault{lane: laneReplica, replica: a.Replica}
		if a.Server != nil {
			f.replica = a.Server.Replica
		}
		p := in.Inject
		if p.IsZero() { // none placed (a hand-written result)
			continue
		}
		from, to, class, what := in.At, end, "f-cut", ""
		switch p.Action {
		case api.Delay:
			to, class = min(in.At+p.Arg, max(end, in.At)), "f-slow"
			what = "a delay of " + p.Arg.String() + " injected at " + string(p.Point) + ": the handler waits"
		case api.PGLatency:
			f.lane, class = lanePostgres, "f-slow"
			what = p.Arg.String() + " of latency on the link to Postgres from " + string(p.Point) + " until the request ended"
		case api.PGCut:
			f.lane = lanePostgres
			what = "the link to Postgres cut at " + string(p.Point) + ", healed when the request ended"
		case api.PGDropReply:
			f.lane = lanePostgres
			what = "Postgres's answers lost from " + string(p.Point) + " (the COMMIT went through unheard), the link then broken, healed when the request ended"
		case api.RedisCut:
			f.lane = laneRedis
			what = "the link to Redis cut at " + string(p.Point) + ", healed when the request ended"
		case api.DynamoDBCut: // no lane of its own: the handler's, which met it
			what = "the link to DynamoDB cut at " + string(p.Point) + ", healed when the request ended"
		}
		b := k.s.bar(from, max(to, from), class)
		switch {
		case in.Reached:
		case k.traced[a.ID]:
			what, b = p.String()+" was planned on this try, which never reached "+string(p.Point), tlBar{Class: "none"}
		default: // the target traces no failpoints: the fault was placed on the whole request
			what, b = p.String()+" placed on the whole request", k.s.bar(a.Call, a.Return, class)
		}
		f.row = k.row(in.Attempt, what, b)
		out = append(out, f)
	}
	return out
}
