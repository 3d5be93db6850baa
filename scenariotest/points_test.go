package scenariotest_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/scenariotest"
	"github.com/idemchaos/idemchaos/targets/failpoint/remote"
)

// withPoints is the target of s with its points (scenariotest.At) on.
func withPoints(s *shop) scenariotest.Target {
	tg := target(s)
	tg.Failpoints = true
	return tg
}

// TestForcedRaceInProcess: with Target.Failpoints, forced-race's gate
// holds a handler's request at its after-check in the test's process: the
// racy shop's duplicate checks the key while the first is held, finds it
// free and charges too; the shop that claims the key under its lock
// answers the duplicate 409 and passes.
func TestForcedRaceInProcess(t *testing.T) {
	res, err := scenariotest.Check(t.Context(), withPoints(newRacyShop()), "forced-race")
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != scenarios.Fail || res.Anomalies[check.DoubleCharge] == 0 {
		t.Errorf("racy shop: verdict %s, anomalies %v; want a failing double_charge", res.Verdict, res.Anomalies)
	}
	res, err = scenariotest.Check(t.Context(), withPoints(newShop(true)), "forced-race")
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != scenarios.Pass {
		t.Errorf("shop with a claim: verdict %s (%v), anomalies %v; want a pass", res.Verdict, res.Assumptions, res.Anomalies)
	}
}

// TestForcedRaceOverTheWire: a URL's service that speaks the failpoint
// protocol (remote.Middleware, a service in a process of its own) gets the
// same from Target.Failpoints, its calls on the wire.
func TestForcedRaceOverTheWire(t *testing.T) {
	s := newRacyShop()
	srv := httptest.NewServer(remote.Middleware(s))
	t.Cleanup(srv.Close)
	tg := withPoints(s)
	tg.Handler, tg.URL = nil, srv.URL
	res, err := scenariotest.Check(t.Context(), tg, "forced-race")
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != scenarios.Fail || res.Anomalies[check.DoubleCharge] == 0 {
		t.Errorf("racy shop on the wire: verdict %s, anomalies %v; want a failing double_charge", res.Verdict, res.Anomalies)
	}
}

// TestForcedRaceWithoutPoints: a target without Failpoints keeps
// forced-race out, saying what to set; one that sets it and never calls a
// point proved nothing, and says so, never a pass.
func TestForcedRaceWithoutPoints(t *testing.T) {
	_, err := scenariotest.Check(t.Context(), target(newRacyShop()), "forced-race")
	var skip *scenarios.SkipError
	if !errors.As(err, &skip) || !strings.Contains(skip.Reason, "set Target.Failpoints, with a handler that calls scenariotest.At") {
		t.Errorf("err %v; want a SkipError saying to set Target.Failpoints", err)
	}
	silent := withPoints(newRacyShop())
	silent.Handler = mute{silent.Handler}
	res, err := scenariotest.Check(t.Context(), silent, "forced-race")
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != scenarios.Inconclusive || !strings.Contains(strings.Join(res.Assumptions, "; "), "Target.Failpoints: the target never called a point") {
		t.Errorf("verdict %s, %v; want inconclusive: the target never called a point", res.Verdict, res.Assumptions)
	}
}

// TestExploreInProcess: every order of two requests of a key, each held
// at the handler's points: the racy shop double charges in every order but
// the two where one request is over before the other is sent, the first
// of the shortest the duplicate's key check after A's charge, before A
// records the key; the shop with a claim holds in every one.
func TestExploreInProcess(t *testing.T) {
	res, err := scenariotest.Explore(t.Context(), withPoints(newRacyShop()))
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || len(res[0].Runs) == 0 {
		t.Fatalf("racy shop: %d cases; want the duplicate case, with its orders", len(res))
	}
	r := res[0]
	failing := r.Failing()
	if len(failing) == 0 || !slices.Contains(failing[0].Outcome.Anomalies, check.DoubleCharge) {
		t.Fatalf("racy shop: %s; want double_charge in some order", r.Sentence())
	}
	if held := len(r.Runs) - len(failing); held != 2 || r.Holding() != 2 {
		t.Errorf("racy shop: %s; want every order failing but the 2 that run one request after the other", r.Sentence())
	}
	if got, want := failing[0].Order.String(), "AAABABBB"; got != want {
		t.Errorf("racy shop: the shortest failing order %s, want %s (B checks the key between A's charge and its record)\n%s",
			got, want, failing[0].Columns(r.Requests))
	}
	t.Log(r.Sentence())
	res, err = scenariotest.Explore(t.Context(), withPoints(newShop(true)), "duplicate", "mismatch")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if len(r.Runs) == 0 || r.Holding() != len(r.Runs) || len(r.Errors) > 0 {
			t.Errorf("shop with a claim: %s; want every order holding", r.Sentence())
		}
		t.Log(r.Sentence())
	}
}

// TestExploreNeedsPoints: Explore says what it needs of a target without
// Failpoints, and fails a target that sets it but never calls a point.
func TestExploreNeedsPoints(t *testing.T) {
	_, err := scenariotest.Explore(t.Context(), target(newShop(true)))
	if err == nil || !strings.Contains(err.Error(), "set Target.Failpoints") {
		t.Errorf("err %v; want Target.Failpoints asked for", err)
	}
	silent := withPoints(newShop(true))
	silent.Handler = mute{silent.Handler}
	_, err = scenariotest.Explore(t.Context(), silent)
	if err == nil || !strings.Contains(err.Error(), "Target.Failpoints: the target never called a point") {
		t.Errorf("err %v; want the target never called a point", err)
	}
}

// mute serves h with a context of its own, which no harness reaches: a
// handler that calls no point.
type mute struct{ h http.Handler }

func (m mute) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.h.ServeHTTP(w, r.WithContext(context.Background()))
}
