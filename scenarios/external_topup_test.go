package scenarios

import (
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/sim/workload"
)

// TestExternalTopUpSkipsAndChecks: business-refusal needs the service's
// top-up request, and a top-up that cannot render is refused by Check
// with one line naming it.
func TestExternalTopUpSkipsAndChecks(t *testing.T) {
	e := External{Name: "svc", URLs: []string{"http://127.0.0.1:1"}, LedgerQuery: "q", ClaimTimeout: DefaultClaimTimeout}
	sc, err := Lookup("business-refusal")
	if err != nil {
		t.Fatal(err)
	}
	if why := e.Skip(sc); !strings.Contains(why, "--topup-path") {
		t.Fatalf("no top-up: skip %q; want it to name --topup-path", why)
	}
	if why := e.Skip(Catalog()[0]); why != "" {
		t.Fatalf("a scenario that funds nothing skipped: %q", why)
	}
	e.TopUp = &TopUp{Path: "/v1/accounts/{{.Account}}/top-ups"}
	if why := e.Skip(sc); why != "" || e.Check() != nil {
		t.Fatalf("with a top-up: skip %q, check %v", why, e.Check())
	}
	for want, top := range map[string]TopUp{
		"must start with /":              {Path: "v1/top-ups"},
		"top-up path template":           {Path: "/{{.Acount}}"},
		"top-up body template":           {Path: "/t", Body: `{"a":{{.Amount}`},
		"top-up amount -1: want 1 to":    {Path: "/t", Amount: -1},
		"top-up amount 2000000000000000": {Path: "/t", Amount: 2_000_000_000_000_000},
	} {
		e.TopUp = &top
		err := e.Check()
		if err == nil || !strings.Contains(err.Error(), want) || strings.ContainsAny(err.Error(), "\n\r") {
			t.Errorf("%+v: %v; want one line containing %q", top, err, want)
		}
	}
}

// TestTopUpRender: the path escapes the account, the body does not; the
// default body is the built-in API's.
func TestTopUpRender(t *testing.T) {
	top := TopUp{Path: "/accounts/{{.Account}}/credit?currency={{.Currency}}"}
	path, body, err := top.Render(TopUpFields{Account: "a b/c", Amount: 1250, Currency: "EUR"})
	if err != nil || path != "/accounts/a%20b%2Fc/credit?currency=EUR" || string(body) != `{"amount":1250}` {
		t.Fatalf("%q %q %v", path, body, err)
	}
	top.Body = `{"customer":"{{.Account}}","cents":{{.Amount}}}`
	if _, body, _ := top.Render(TopUpFields{Account: "a b", Amount: 7}); string(body) != `{"customer":"a b","cents":7}` {
		t.Fatalf("body %q", body)
	}
}

// TestAdaptTopUpsFollowsTheService: against a user's service the top-ups
// name its accounts, and a declared amount replaces the plan's on the
// declined charges, their retries, the fresh charges after them and the
// top-ups alike, and on nothing else.
func TestAdaptTopUpsFollowsTheService(t *testing.T) {
	plan := planRefusal(workload.Seeded(3, "t"), Params{Replicas: 1})
	e := External{URLs: []string{"http://127.0.0.1:1"}, Accounts: []string{"alice", "bob"}, TopUp: &TopUp{Path: "/t", Amount: 5_000_000_00}}
	got := e.adaptTopUps(plan, e.adapt(plan))
	if len(got.TopUps) != refusalTrials {
		t.Fatalf("%d top-ups; want %d", len(got.TopUps), refusalTrials)
	}
	for i, top := range got.TopUps {
		if want := []string{"alice", "bob", "alice"}[i]; top.Account != want || top.Amount != 5_000_000_00 || top.Stage != 1 {
			t.Errorf("top-up %d: %+v; want %s, 500000000, stage 1", i, top, want)
		}
	}
	for i, op := range got.Ops {
		if op.Amount != 5_000_000_00 || op.Account != got.TopUps[i%refusalTrials].Account && op.Stage == 0 {
			t.Errorf("op %d: %+v", i, op)
		}
	}
	e.TopUp.Amount = 0
	if kept := e.adaptTopUps(plan, e.adapt(plan)); kept.TopUps[1].Amount != plan.TopUps[1].Amount || kept.Ops[0].Amount != plan.Ops[0].Amount {
		t.Errorf("no amount declared: the plan's must stay: %+v", kept.TopUps)
	}
}
