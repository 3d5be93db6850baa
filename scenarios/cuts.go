package scenarios

import (
	"fmt"
	"net/http"

	"github.com/idemchaos/idemchaos/targets/api"
)

// StoreCut is a store proxy the harness cut for one try of a user's
// service, with what of the service's traffic met the cut: the proxy keeps
// listening while cut (fault.Link.Divert), so the connections the service
// made on it then, each reset, are counted, with the bytes they carried.
type StoreCut struct {
	Action  api.Action `json:"action"`  // pg-cut, redis-cut or dynamodb-cut
	Proxy   string     `json:"proxy"`   // the proxy's name in the user's Toxiproxy
	Attempt string     `json:"attempt"` // the try it was cut for
	Conns   int        `json:"conns"`   // connections the service made on the proxy while it was cut
	Bytes   int64      `json:"bytes"`   // what they carried before the reset
}

// met reports whether the service met the cut: it used the proxy while it
// was cut, or the try it was cut for was answered with a server error (its
// store out of reach on a connection the cut closed).
func (c StoreCut) met(status map[string]int) bool {
	return c.Conns > 0 || status[c.Attempt] >= http.StatusInternalServerError
}

// assumeCutsMet: for each store proxy the run cut, the service met at least
// one of its cuts. A cut nothing met did not fire, whatever the harness
// did: the service reaches that store on another path too (a second pool,
// a direct URL in one code path), or does not use it in a request, and
// passed without ever meeting the fault. A run that recorded no cuts (a
// built-in target, whose links are its own code's; a record saved before
// cuts were) has nothing to check.
func assumeCutsMet(o Observation) []string {
	if len(o.Cuts) == 0 {
		return nil
	}
	status := map[string]int{}
	for _, a := range o.History.Attempts {
		status[a.ID] = a.Status
	}
	type link struct {
		proxy  string
		cuts   int
		met    bool
		action api.Action
	}
	var order []*link
	by := map[api.Action]*link{}
	for _, c := range o.Cuts {
		l := by[c.Action]
		if l == nil {
			l = &link{proxy: c.Proxy, action: c.Action}
			by[c.Action], order = l, append(order, l)
		}
		l.cuts++
		l.met = l.met || c.met(status)
	}
	var out []string
	for _, l := range order {
		if !l.met {
			s := cutStore(l.action)
			out = append(out, fmt.Sprintf("the %s proxy %s saw no traffic from the service while cut (%s), and no faulted request got a server error: "+
				"does the service reach its %s on another path (or not at all)?", s, l.proxy, plural(l.cuts, "cut"), s))
		}
	}
	return out
}

// cutStore names the store whose link a cut takes down.
func cutStore(a api.Action) string {
	switch a {
	case api.RedisCut:
		return "Redis"
	case api.DynamoDBCut:
		return "DynamoDB"
	}
	return "Postgres"
}
