package main

import (
	"strings"
	"testing"
)

// paymentdTopUp is the top-up request paymentd serves, as its banner prints it.
const paymentdTopUp = "/v1/accounts/{{.Account}}/top-ups"

// refusalSeeds is how many seeds business-refusal runs against paymentd.
const refusalSeeds = 3

// TestTargetRefusalPaymentd: business-refusal against paymentd as an
// external process, funded through its top-up endpoint (--topup-path):
// pg-success-only charges a declined key once its account is funded, on
// every seed, with the top-ups recorded as paid; pg-tx passes, twice on
// the same seed against the same persistent ledger (every run leaves the
// balances as it found them, so the charge is declined again); without
// --topup-path the scenario is skipped with the reason.
func TestTargetRefusalPaymentd(t *testing.T) {
	t.Parallel()
	flawed := startPaymentd(t, "pg-success-only")
	out := t.TempDir()
	o := cliEnv(t, nil, "matrix", "--quiet", "--target-url", flawed.url, "--ledger-url", flawed.ledgerURL, "--ledger-query", flawed.ledgerQuery,
		"--topup-path", paymentdTopUp, "--scenarios", "business-refusal", "--seeds", "3", "--json", "-", "--out", out)
	if o.code != exitViolated {
		t.Fatalf("pg-success-only: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", o.code, o.stdout, o.stderr)
	}
	doc := readDoc(t, o)
	if len(doc.Results) != refusalSeeds {
		t.Fatalf("%d results, want %d", len(doc.Results), refusalSeeds)
	}
	for _, r := range doc.Results {
		if r.Verdict != "fail" || r.Anomalies["refusal_not_replayed"] == 0 || r.Anomalies["double_charge"] != 0 {
			t.Errorf("seed %d: %s with %v; want fail with refusal_not_replayed alone", r.Seed, r.Verdict, r.Anomalies)
		}
		obs := observed(t, out, "business-refusal", r.Seed)
		if len(obs.TopUps) != 3 {
			t.Fatalf("seed %d: %d top-ups recorded, want 3", r.Seed, len(obs.TopUps))
		}
		for _, top := range obs.TopUps {
			if top.Err != "" || top.Status != 200 {
				t.Errorf("seed %d: top-up %+v; want paid with 200", r.Seed, top)
			}
		}
	}
	if !strings.Contains(o.stdout, "--topup-path '"+paymentdTopUp+"'") {
		t.Errorf("the repro lines lack --topup-path:\n%s", o.stdout)
	}

	correct := startPaymentd(t, "pg-tx")
	for range 2 {
		o := runAgainst(t, correct, "--scenario", "business-refusal", "--seed", "1", "--topup-path", paymentdTopUp)
		if o.code != exitPass {
			t.Fatalf("pg-tx: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", o.code, o.stdout, o.stderr)
		}
	}
	o = cliEnv(t, nil, "matrix", "--quiet", "--target-url", correct.url, "--ledger-url", correct.ledgerURL, "--ledger-query", correct.ledgerQuery,
		"--scenarios", "business-refusal,missing-key")
	if o.code != exitPass || !strings.Contains(o.stderr, "skipped business-refusal: needs a way to fund an account") ||
		!strings.Contains(o.stderr, "--topup-path") {
		t.Errorf("without --topup-path: exit %d, stderr %q; want 0 and business-refusal skipped with the reason", o.code, o.stderr)
	}
}

// TestTargetRefusalTopUpThatDoesNotFund: a top-up request that fails, or
// that pays in too little to fund the declined charge, proves nothing:
// inconclusive, exit 4, saying why; never a pass.
func TestTargetRefusalTopUpThatDoesNotFund(t *testing.T) {
	t.Parallel()
	p := startPaymentd(t, "pg-tx")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--topup-path", "/v1/nowhere/{{.Account}}"}, "answered 404"},
		{[]string{"--topup-path", paymentdTopUp, "--topup-body", `{"amount":1}`}, "the top-up did not fund the account"},
		{[]string{"--topup-path", paymentdTopUp, "--topup-amount", "1"}, "was not declined"},
	} {
		o := runAgainst(t, p, append([]string{"--scenario", "business-refusal", "--seed", "2", "--json", "-"}, c.args...)...)
		if o.code != exitInconclusive || !strings.Contains(o.stdout, c.want) {
			t.Errorf("%v: exit %d, want 4 saying %q\nstdout:\n%s\nstderr:\n%s", c.args, o.code, c.want, o.stdout, o.stderr)
		}
	}
}

// TestTargetRefusalFlagsChecked: the top-up flags are checked before
// anything runs, one line, exit 2.
func TestTargetRefusalFlagsChecked(t *testing.T) {
	base := []string{"run", "--target-url", "http://127.0.0.1:1", "--ledger-url", "postgres://x@127.0.0.1:1/x", "--ledger-query", "q",
		"--scenario", "business-refusal"}
	for want, extra := range map[string][]string{
		"give --topup-path too":         {"--topup-body", `{"a":1}`},
		"top-up path \"v1\" must start": {"--topup-path", "v1"},
		"top-up body template":          {"--topup-path", "/t", "--topup-body", "{{.Nope}}"},
		"--topup-amount -5":             {"--topup-path", "/t", "--topup-amount", "-5"},
	} {
		o := cliEnv(t, nil, append(base, extra...)...)
		if o.code != exitUsage || !strings.Contains(o.stderr, want) || strings.Count(strings.TrimSpace(o.stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", extra, o.code, o.stderr, want)
		}
	}
}
