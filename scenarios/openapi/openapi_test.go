package openapi

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/targets/api"
)

const paymentdSpec = "../../examples/openapi/paymentd.yaml"

func load(t *testing.T, text string) *Doc {
	t.Helper()
	d, err := Parse([]byte(text))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return d
}

func mapOne(t *testing.T, d *Doc, w Want) client.Shape {
	t.Helper()
	o, err := d.Pick("")
	if err != nil {
		t.Fatal(err)
	}
	s, err := o.Map(w)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestMapsThePaymentdExample(t *testing.T) {
	d, err := Load(paymentdSpec)
	if err != nil {
		t.Fatal(err)
	}
	got := mapOne(t, d, Want{})
	want := client.Shape{Path: api.PathCharges, KeyHeader: api.HeaderKey, Success: []int{201}, ChargeID: "id",
		ReplayHeader: api.HeaderReplayed, Body: `{"account":"{{.Account}}","amount":{{.Amount}},"currency":"{{.Currency}}"}`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mapped\n %+v\nwant\n %+v", got, want)
	}
	if err := got.Check(); err != nil {
		t.Errorf("the mapped shape does not check: %v", err)
	}
}

// hinted is a 3.0 description in JSON with no example: the body is made
// from the schema, the fields found by hints, nested, the amount a string.
const hintedSpec = `{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {
 "/pay": {"post": {"operationId": "pay",
  "parameters": [{"name": "X-Request-Token", "in": "header", "required": true, "x-idemchaos-key-header": true, "schema": {"type": "string"}}],
  "requestBody": {"content": {"application/json": {"schema": {"type": "object", "required": ["source", "value", "ref", "memo"],
    "properties": {"source": {"type": "object", "required": ["wallet"], "properties": {"wallet": {"type": "string", "x-idemchaos-field": "account"}}},
      "value": {"type": "string", "x-idemchaos-field": "amount"},
      "ref": {"type": "string", "x-idemchaos-field": "key"},
      "memo": {"type": "string", "default": "chaos"},
      "created": {"type": "string", "readOnly": true}}}}}},
  "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object",
     "properties": {"data": {"type": "object", "properties": {"payment": {"type": "string", "x-idemchaos-field": "charge-id"}}}}}}}},
   "202": {"description": "accepted"}}}},
 "/other": {"get": {"responses": {"200": {"description": "ok"}}}}}}`

func TestMapsFromSchemaAndHints(t *testing.T) {
	got := mapOne(t, load(t, hintedSpec), Want{})
	want := client.Shape{Path: "/pay", KeyHeader: "X-Request-Token", Success: []int{200, 202}, ChargeID: "data.payment",
		Body: `{"memo":"chaos","ref":"{{.Key}}","source":{"wallet":"{{.Account}}"},"value":"{{.Amount}}"}`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mapped\n %+v\nwant\n %+v", got, want)
	}
}

func TestFlagsWin(t *testing.T) {
	d, _ := Load(paymentdSpec)
	got := mapOne(t, d, Want{Shape: client.Shape{Path: "/x", KeyHeader: "K", Success: []int{200}, ChargeID: "c", Body: "b"}})
	if got.Path != "/x" || got.KeyHeader != "K" || got.ChargeID != "c" || got.Body != "b" || !reflect.DeepEqual(got.Success, []int{200}) {
		t.Errorf("flags lost: %+v", got)
	}
	// a field mapping by flag: the example's currency taken as the account
	got = mapOne(t, d, Want{AccountField: "currency"})
	if !strings.Contains(got.Body, `"currency":"{{.Account}}"`) || !strings.Contains(got.Body, `"account":"acct-1"`) {
		t.Errorf("--account-field currency: body %s", got.Body)
	}
}

// bare documents an operation with a key header and nothing a charge needs.
const bare = `openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /c/{id}:
    put:
      operationId: put
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
        - {name: Idempotency-Key, in: header, schema: {type: string}}
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {note: {type: string}}}
      responses:
        "400": {description: bad}
`

func TestUnmappableSaysWhatIsMissingInOneLine(t *testing.T) {
	o, err := load(t, bare).Pick("")
	if err != nil {
		t.Fatal(err)
	}
	_, err = o.Map(Want{})
	if err == nil {
		t.Fatal("mapped an operation with nothing a charge needs")
	}
	msg := err.Error()
	for _, want := range []string{"operation put cannot be mapped", "PUT", "path /c/{id} has parameters", "no 2xx response",
		"no account field", "no amount field", "no charge id field"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q: %s", want, msg)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("error is more than one line: %q", msg)
	}
}

func TestPick(t *testing.T) {
	two := strings.Replace(hintedSpec, `"/other": {"get": {`, `"/other": {"post": {"operationId": "refund", "parameters": [{"name": "Idempotency-Key", "in": "header", "schema": {"type": "string"}}], `, 1)
	d := load(t, two)
	if _, err := d.Pick(""); err == nil || !strings.Contains(err.Error(), "2 operations declare an idempotency key header (refund, pay): pick one with --operation") {
		t.Errorf("two keyed operations: %v", err)
	}
	if o, err := d.Pick("POST /pay"); err != nil || o.Name() != "pay" {
		t.Errorf("POST /pay: %v %v", o.Name(), err)
	}
	if _, err := d.Pick("nope"); err == nil || !strings.Contains(err.Error(), `no operation "nope"`) {
		t.Errorf("unknown operation: %v", err)
	}
	none := strings.ReplaceAll(hintedSpec, `"x-idemchaos-key-header": true, `, "")
	if _, err := load(t, none).Pick(""); err == nil || !strings.Contains(err.Error(), "no operation declares an idempotency key header") {
		t.Errorf("no keyed operation: %v", err)
	}
}

func TestParseRefuses(t *testing.T) {
	cases := map[string]string{
		`swagger: "2.0"` + "\ninfo: {title: t, version: '1'}\npaths: {}\n":                       "OpenAPI 3.0 or 3.1",
		"openapi: 3.1.0\ninfo: {title: t}\npaths: {}\n":                                          "invalid",
		"openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {/a: {$ref: 'other.yaml#/x'}}\n": "other.yaml",
		"openapi: [\n": "",
	}
	for text, want := range cases {
		_, err := Parse([]byte(text))
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v; want one line with %q", text, err, want)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "none.yaml")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
}

func TestLint(t *testing.T) {
	d, _ := Load(paymentdSpec)
	if gaps, err := d.Lint("", api.IETF); err != nil || len(gaps) != 0 {
		t.Errorf("the paymentd example against ietf: %v %q; want no gap", err, gaps)
	}
	data, err := os.ReadFile(paymentdSpec)
	if err != nil {
		t.Fatal(err)
	}
	text := dropResponse(t, dropResponse(t, string(data), "409"), "422")
	gaps, err := load(t, text).Lint("", api.IETF)
	want := []string{
		"createCharge: no 409 response documented (profile ietf answers it to a duplicate sent while the first runs)",
		"createCharge: no 422 response documented (profile ietf answers it to a key reused with another body)",
	}
	if err != nil || !reflect.DeepEqual(gaps, want) {
		t.Errorf("without 409 and 422: %v\n%q\nwant\n%q", err, gaps, want)
	}
	gaps, _ = d.Lint("createCharge", api.Stripe)
	if len(gaps) != 1 || !strings.Contains(gaps[0], "header Idempotency-Key is required, but profile stripe serves a request without it") {
		t.Errorf("against stripe: %q", gaps)
	}
	noBody := strings.Replace(text, "\n        \"503\":\n          description: A store is unavailable; nothing was charged for the key, retry it.\n          content:\n            application/json:\n              schema: {$ref: \"#/components/schemas/Error\"}\n", "\n        \"503\": {description: down}\n", 1)
	noReplay := strings.Replace(noBody, "Idempotent-Replayed:", "X-Other:", 1)
	gaps, _ = load(t, noReplay).Lint("", api.Profile{Name: "mine", MissingKey: 503, InFlight: 409, Mismatch: 400, ReplayHeader: api.HeaderReplayed})
	want = []string{
		"createCharge: the 503 response documents no JSON body (profile mine answers it to a request without a key)",
		"createCharge: no 409 response documented (profile mine answers it to a duplicate sent while the first runs)",
		"createCharge: no success response documents the Idempotent-Replayed header (profile mine marks every replay with it)",
	}
	if !reflect.DeepEqual(gaps, want) {
		t.Errorf("no body, no replay header:\n%q\nwant\n%q", gaps, want)
	}
}

// TestLintStatusSets: for a set of statuses, one of them documented is
// enough (the service answers one of them); none documented is one gap
// naming the set, and each documented one must have a body.
func TestLintStatusSets(t *testing.T) {
	data, err := os.ReadFile(paymentdSpec)
	if err != nil {
		t.Fatal(err)
	}
	early := api.Profile{Name: "early", MissingKey: 400, InFlight: 425, InFlightAlso: []int{409}, Mismatch: 422, MismatchAlso: []int{409}}
	if gaps, err := load(t, string(data)).Lint("", early); err != nil || len(gaps) != 0 {
		t.Errorf("409 documented, under in_flight [425, 409]: %v %q; want no gap", err, gaps)
	}
	text := dropResponse(t, string(data), "409")
	gaps, _ := load(t, text).Lint("", early)
	want := []string{"createCharge: no 425 or 409 response documented (profile early answers one of them to a duplicate sent while the first runs)"}
	if !reflect.DeepEqual(gaps, want) {
		t.Errorf("without 409:\n%q\nwant\n%q", gaps, want)
	}
	gaps, _ = load(t, dropResponse(t, text, "422")).Lint("", early)
	want = append(want, "createCharge: no 422 or 409 response documented (profile early answers one of them to a key reused with another body)")
	if !reflect.DeepEqual(gaps, want) {
		t.Errorf("without 409 and 422:\n%q\nwant\n%q", gaps, want)
	}
	bodiless := strings.Replace(string(data), "        \"409\":\n          description: The key's first request is still running (idempotency_key_in_use).\n          content:\n            application/json:\n              schema: {$ref: \"#/components/schemas/Error\"}\n",
		"        \"409\": {description: in use}\n        \"425\": {description: too early}\n", 1)
	gaps, _ = load(t, bodiless).Lint("", early)
	want = []string{
		"createCharge: the 425 response documents no JSON body (profile early answers it to a duplicate sent while the first runs)",
		"createCharge: the 409 response documents no JSON body (profile early answers it to a duplicate sent while the first runs)",
	}
	if !reflect.DeepEqual(gaps, want) {
		t.Errorf("425 and 409 without a body:\n%q\nwant\n%q", gaps, want)
	}
}

// dropResponse removes the createCharge response for code from text.
func dropResponse(t *testing.T, text, code string) string {
	t.Helper()
	start := strings.Index(text, "        \""+code+"\":")
	end := strings.Index(text[start+1:], "        \"")
	if start < 0 || end < 0 {
		t.Fatalf("no %s response in the example", code)
	}
	return text[:start] + text[start+1+end:]
}

func TestUndocumented(t *testing.T) {
	d, _ := Load(paymentdSpec)
	o, _ := d.Pick("")
	got := o.Undocumented(map[int]int{0: 4, 201: 9, 409: 2, 500: 1, 502: 3})
	want := []string{
		"the service answered 500 (once), which the description does not document for createCharge",
		"the service answered 502 (3 times), which the description does not document for createCharge",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
