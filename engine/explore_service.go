package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/idemchaos/idemchaos/scenarios/explore"
	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
	"github.com/idemchaos/idemchaos/targets/failpoint/remote"
)

// Explore explores a service that speaks the failpoint protocol: its
// every point held by the scheduler through the control endpoint, each
// execution on a fresh key and one of the service's accounts no other
// running execution uses; the ground truth from its ledger.
func (r *Service) Explore(ctx context.Context, spec ExploreSpec) ([]explore.Result, error) {
	if !r.target.Failpoints {
		return nil, errors.New("explore holds a service's requests at its failpoints: give --failpoints, for a service that speaks the protocol (docs/failpoints.md)")
	}
	if err := r.reachable(ctx); err != nil {
		return nil, err
	}
	set := &failpoint.Set{}
	srv, err := remote.Listen(set)
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	ids := r.target.AccountIDs()
	accounts := make(chan string, len(ids))
	for _, a := range ids {
		accounts <- a
	}
	res, err := exploreOn(ctx, serviceExplore{r: r, set: set, srv: srv, accounts: accounts}, spec)
	if err == nil && len(res) > 0 && len(res[0].Runs) > 0 && !r.spoke(res) {
		err = fmt.Errorf("--failpoints: the service never called the control URL of the %s header: does it speak the failpoint protocol (docs/failpoints.md)?", remote.Header)
	}
	return res, errors.Join(err, r.heal())
}

// spoke reports whether any execution of res had a request held at a
// point: a service that never calls the control URL has only its sends.
func (r *Service) spoke(res []explore.Result) bool {
	for _, c := range res {
		for _, run := range c.Runs {
			for _, s := range run.Steps {
				if s.From != explore.Send {
					return true
				}
			}
		}
	}
	return false
}

// serviceExplore is a user's service as an exploreTarget.
type serviceExplore struct {
	r        *Service
	set      *failpoint.Set
	srv      *remote.Server
	accounts chan string
}

func (s serviceExplore) name() string             { return s.r.target.Name }
func (s serviceExplore) points() []*failpoint.Set { return []*failpoint.Set{s.set} }
func (s serviceExplore) route(int) string         { return s.r.target.URLs[0] }
func (s serviceExplore) twoStores() bool          { return false }
func (s serviceExplore) workers() int             { return cap(s.accounts) }
func (s serviceExplore) claimTimeout() time.Duration {
	return s.r.target.ClaimTimeout
}

func (s serviceExplore) currency() string {
	if s.r.target.Currency != "" {
		return s.r.target.Currency
	}
	return "EUR"
}

// client sends the service's shape, with the control URL on every request.
func (s serviceExplore) client() client.Config {
	return client.Config{Shape: s.r.target.Shape, Header: func(workload.Op, int) http.Header {
		return http.Header{remote.Header: {s.srv.URL(0)}}
	}}
}

// account takes one of the service's accounts, free of every other
// running execution (its row locks are not another's waits).
func (s serviceExplore) account(ctx context.Context, _ int) (string, func(), error) {
	select {
	case a := <-s.accounts:
		return a, func() { s.accounts <- a }, nil
	case <-ctx.Done():
		return "", nil, ctx.Err()
	}
}

// truth reads the charges of the keys from the service's ledger.
func (s serviceExplore) truth(ctx context.Context, keys []string) (history.Ledger, error) {
	charges, err := readCharges(ctx, s.r.ledger, lookup{keys: keys})
	return history.Ledger{Charges: charges, NoAttemptIDs: !s.r.info.AttemptIDs, NoChargeIDs: !s.r.info.ChargeIDs}, err
}

// cut diverts the service's own store proxy (fault.Link.Divert): its
// connections break, new ones are accepted and reset.
func (s serviceExplore) cut(a api.Action) (func(), error) {
	l := s.link(a)
	if l == nil {
		return nil, fmt.Errorf("no %s proxy", a)
	}
	if err := l.Divert(); err != nil {
		return nil, err
	}
	return func() { _ = l.Heal() }, nil
}

func (s serviceExplore) link(a api.Action) *fault.Link {
	if a == api.RedisCut {
		return s.r.redisLink
	}
	return s.r.pgLink
}

// kills: the service's process is not the harness's to kill.
func (s serviceExplore) kills() bool { return false }

func (s serviceExplore) kill(context.Context) (func(), error) {
	return nil, errors.New("a service's process is not the harness's to kill")
}

// cuts are the links the service's proxies give.
func (s serviceExplore) cuts() []api.Action {
	var out []api.Action
	if s.r.pgLink != nil {
		out = append(out, api.PGCut)
	}
	if s.r.redisLink != nil {
		out = append(out, api.RedisCut)
	}
	return out
}
