package main

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/fault"
)

// TestTargetStoreCutCountsOnlyWhereTheServiceMetIt: a store fault counts
// only where the service met it. paysvc reaching its database through the
// user's Toxiproxy passes db-fault-mid-request, the proxy having seen its
// connections while cut; the same service writing its charges through a
// second pool on a direct URL (--commit-dsn) answers every cut request as
// if nothing happened: inconclusive, naming the proxy and its cuts. Under
// redis-fault-after-commit, where the cut request's answer is lost too and
// only the proxy can tell, paymentd redis-pg-guard (a Redis claim, the key
// unique in Postgres) passes with its Redis through the proxy the run
// names, and is inconclusive with its Redis reached directly; so is
// paymentd --failpoints pg-tx, which never uses Redis, the cut fired at its
// after-commit point. Both of those passed before cuts were counted. A
// saved run checked again offline gets the same verdict.
func TestTargetStoreCutCountsOnlyWhereTheServiceMetIt(t *testing.T) {
	t.Parallel()
	toxi, err := fault.Embedded() // stands for the user's Toxiproxy
	if err != nil {
		t.Fatal(err)
	}
	defer toxi.Close()
	paysvcOn := func(second bool) func(t *testing.T) cutRun {
		return func(t *testing.T) cutRun {
			dsn := paysvcDatabase(t)
			link, via := linkTo(t, toxi, dsn)
			args := []string{"--dsn", via}
			if second {
				args = append(args, "--commit-dsn", dsn)
			}
			p := runPaysvc(t, dsn, args...)
			return cutRun{target: p.url, ledgerURL: dsn, ledgerQuery: paysvcQuery, store: "Postgres", link: link,
				scenario: "db-fault-mid-request", bypassed: second}
		}
	}
	paymentdOn := func(strategy string, direct bool, extra ...string) func(t *testing.T) cutRun {
		return func(t *testing.T) cutRun {
			link, via := linkTo(t, toxi, services.RedisURL)
			if direct {
				via = services.RedisURL
			}
			p := startPaymentd(t, strategy, append(slices.Clone(extra), "--redis-url", via)...)
			return cutRun{target: p.url, ledgerURL: p.ledgerURL, ledgerQuery: p.ledgerQuery, store: "Redis", link: link,
				scenario: "redis-fault-after-commit", bypassed: direct || strategy == "pg-tx", extra: extra}
		}
	}
	for _, c := range []struct {
		name  string
		start func(t *testing.T) cutRun
	}{
		{"paysvc through the proxy", paysvcOn(false)},
		{"paysvc on a second path", paysvcOn(true)},
		{"redis-pg-guard through the proxy", paymentdOn("redis-pg-guard", false)},
		{"redis-pg-guard reaching Redis directly", paymentdOn("redis-pg-guard", true)},
		{"failpoints pg-tx never using Redis", paymentdOn("pg-tx", false, "--failpoints")},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := c.start(t)
			r.toxiproxy = toxi.URL
			runCut(t, r)
		})
	}
}

// cutsMet tells how many of cuts the service met with a connection, and
// with how many: "" for none.
func cutsMet(cuts []scenarios.StoreCut) string {
	if len(cuts) == 0 {
		return ""
	}
	met, conns := 0, 0
	for _, c := range cuts {
		if c.Conns > 0 {
			met++
		}
		conns += c.Conns
	}
	return fmt.Sprintf("; %d of %d cuts met by %d connections", met, len(cuts), conns)
}

// linkTo makes a proxy of toxi in front of the server of rawURL (a
// database or Redis URL) and returns it with the URL through it.
func linkTo(t *testing.T, toxi *fault.Toxiproxy, rawURL string) (*fault.Link, string) {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	link, err := toxi.Link(strings.NewReplacer("/", "-", " ", "-").Replace(t.Name()), u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = link.Close() })
	via := *u
	via.Host = link.Listen
	return link, via.String()
}

// cutRun is a service run under a store-cut scenario, the store's proxy
// named on the command line.
type cutRun struct {
	target, ledgerURL, ledgerQuery string
	store                          string // Postgres or Redis
	link                           *fault.Link
	toxiproxy, scenario            string
	bypassed                       bool     // the service's store traffic does not go (all) through link
	extra                          []string // more arguments of the run
}

// runCut runs r and checks its verdict: a pass whose cuts the service's
// connections met, or, bypassed, an inconclusive run that says the proxy
// saw nothing of the service while cut; the saved run, checked again
// offline, gets the same verdict for the same reason.
func runCut(t *testing.T, r cutRun) {
	t.Helper()
	flag, code := "--postgres-proxy", exitPass
	if r.store == "Redis" {
		flag = "--redis-proxy"
	}
	if r.bypassed {
		code = exitInconclusive
	}
	out := t.TempDir()
	o := cliEnv(t, nil, append([]string{"run", "--target-url", r.target, "--ledger-url", r.ledgerURL, "--ledger-query", r.ledgerQuery,
		"--toxiproxy-url", r.toxiproxy, flag, r.link.Name, "--scenario", r.scenario, "--json", "-", "--out", out}, r.extra...)...)
	doc := readDoc(t, o)
	if o.code != code || len(doc.Results) != 1 {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", o.code, code, o.stdout, o.stderr)
	}
	res := doc.Results[0]
	obs := observed(t, out, r.scenario, res.Seed)
	conns, bytes := 0, int64(0)
	for _, cut := range obs.Cuts {
		conns, bytes = conns+cut.Conns, bytes+cut.Bytes
	}
	t.Logf("%s%s (%d bytes); assumptions %q", res.Verdict, cutsMet(obs.Cuts), bytes, res.Assumptions)
	if len(obs.Cuts) == 0 || len(obs.Cuts) != obs.Injected {
		t.Fatalf("%d cuts recorded, %d fired; want one recorded for each", len(obs.Cuts), obs.Injected)
	}
	why := fmt.Sprintf("the %s proxy %s saw no traffic from the service while cut (%d cuts), and no faulted request got a server error",
		r.store, r.link.Name, len(obs.Cuts))
	switch {
	case !r.bypassed && conns == 0:
		t.Errorf("no connection met the cuts of a service whose every %s call goes through the proxy", r.store)
	case r.bypassed && (conns != 0 || len(res.Assumptions) != 1 || !strings.Contains(res.Assumptions[0], why)):
		t.Errorf("%d connections met the cuts, assumptions %q; want none, and one reason with %q", conns, res.Assumptions, why)
	}
	again := cliEnv(t, nil, "check", out)
	if again.code != code || r.bypassed && !strings.Contains(strings.Join(strings.Fields(again.stdout), " "), why) {
		t.Errorf("check of the saved run: exit %d, want %d (the same verdict, for the same reason)\n%s\n%s", again.code, code, again.stdout, again.stderr)
	}
}
