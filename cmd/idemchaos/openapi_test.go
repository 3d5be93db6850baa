package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const paymentdSpec = "../../examples/openapi/paymentd.yaml"

// specVariant writes the paymentd description with old replaced by new.
func specVariant(t *testing.T, old, new string) string {
	t.Helper()
	data, err := os.ReadFile(paymentdSpec)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("the example has no %q", old)
	}
	p := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(p, []byte(strings.Replace(string(data), old, new, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOpenAPIRunWithoutShapeFlags: the done-when of --openapi. The run
// against paymentd reads its request from the description alone; a
// description naming another key header sends no key paymentd reads, and
// the run cannot pass; a status the description leaves out is noted.
func TestOpenAPIRunWithoutShapeFlags(t *testing.T) {
	t.Parallel()
	p := startPaymentd(t, "pg-tx")
	o := runAgainst(t, p, "--openapi", paymentdSpec, "--scenario", "concurrent-duplicates", "--seed", "3")
	if o.code != exitPass {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", o.code, o.stdout, o.stderr)
	}
	want := `openapi: createCharge: POST /v1/charges, key in Idempotency-Key, success [201], charge id id, body {"account":"{{.Account}}","amount":{{.Amount}},"currency":"{{.Currency}}"}`
	if !strings.Contains(o.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, o.stderr)
	}
	if strings.Contains(o.stderr, "note: ") {
		t.Errorf("a note for a status the example documents:\n%s", o.stderr)
	}
	other := specVariant(t, "name: Idempotency-Key", "name: X-Idempotency-Token")
	if o := runAgainst(t, p, "--openapi", other, "--scenario", "concurrent-duplicates", "--seed", "3"); o.code == exitPass {
		t.Errorf("the key in a header paymentd does not read passed\nstderr:\n%s", o.stderr)
	}
	no422 := specVariant(t, `        "422":`, `        "423":`)
	o = runAgainst(t, p, "--openapi", no422, "--scenario", "payload-mismatch", "--seed", "3")
	if o.code != exitPass || !strings.Contains(o.stderr, "note: the service answered 422 (") ||
		!strings.Contains(o.stderr, "which the description does not document for createCharge") {
		t.Errorf("exit %d; want 0 with a note on the undocumented 422\nstderr:\n%s", o.code, o.stderr)
	}
}

func TestOpenAPIBadInputExit2(t *testing.T) {
	target := []string{"run", "--target-url", "http://127.0.0.1:1", "--ledger-url", "postgres://x@127.0.0.1:1/x", "--ledger-query", "q", "--scenario", "missing-key"}
	cases := []struct {
		args []string
		want string
	}{
		{append(target, "--openapi", "nope.yaml"), "--openapi nope.yaml: no such file or directory"},
		{append(target, "--openapi", paymentdSpec, "--operation", "getAccount"), "operation getAccount cannot be mapped: it is a GET"},
		{append(target, "--openapi", paymentdSpec, "--operation", "nope"), `no operation "nope" (the description has: `},
		{append(target, "--operation", "createCharge"), "give --openapi too"},
		{[]string{"run", "--strategy", "pg-tx", "--scenario", "missing-key", "--openapi", paymentdSpec}, "give --target-url too"},
		{[]string{"matrix", "--scenarios", "missing-key", "--openapi", paymentdSpec}, "give --target-url too"},
	}
	for _, c := range cases {
		o := cliEnv(t, nil, c.args...)
		if o.code != exitUsage || !strings.Contains(o.stderr, c.want) || strings.Count(strings.TrimSpace(o.stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", c.args, o.code, o.stderr, c.want)
		}
	}
}

// TestLint: the paymentd example documents the ietf contract; without its
// 409 and 422 responses, lint names both gaps, one line each, exit 1;
// against stripe the required key header is the gap; bad input exit 2.
func TestLint(t *testing.T) {
	o := cliEnv(t, nil, "lint", "--openapi", paymentdSpec)
	if o.code != exitPass || o.stdout != paymentdSpec+" documents the ietf contract\n" {
		t.Errorf("the example: exit %d\nstdout %q\nstderr %q; want 0", o.code, o.stdout, o.stderr)
	}
	gapped := specVariant(t, `        "409":`, `        "x-409":`)
	data, _ := os.ReadFile(gapped)
	if err := os.WriteFile(gapped, []byte(strings.Replace(string(data), `        "422":`, `        "x-422":`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	o = cliEnv(t, nil, "lint", "--openapi", gapped)
	want := "createCharge: no 409 response documented (profile ietf answers it to a duplicate sent while the first runs)\n" +
		"createCharge: no 422 response documented (profile ietf answers it to a key reused with another body)\n"
	if o.code != exitViolated || o.stdout != want {
		t.Errorf("without 409 and 422: exit %d\nstdout %q\nwant   %q", o.code, o.stdout, want)
	}
	o = cliEnv(t, nil, "lint", "--openapi", paymentdSpec, "--profile", "stripe")
	if o.code != exitViolated || !strings.Contains(o.stdout, "header Idempotency-Key is required, but profile stripe serves a request without it") {
		t.Errorf("against stripe: exit %d\nstdout %q", o.code, o.stdout)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"lint"}, "--openapi FILE is required"},
		{[]string{"lint", "--openapi", "nope.yaml"}, "no such file"},
		{[]string{"lint", "--openapi", paymentdSpec, "--profile", "nope"}, "--profile"},
		{[]string{"lint", "--openapi", paymentdSpec, "--operation", "nope"}, `no operation "nope"`},
	} {
		o := cliEnv(t, nil, c.args...)
		if o.code != exitUsage || !strings.Contains(o.stderr, c.want) || strings.Count(strings.TrimSpace(o.stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", c.args, o.code, o.stderr, c.want)
		}
	}
}
