package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
)

// exchange is one request and the operation of the description it is.
type exchange struct {
	method, path, template, key, body string
	want                              int // the status paymentd is meant to answer
}

// TestAnswersAsTheOpenAPIExampleDocuments keeps examples/openapi/paymentd.yaml
// true: every answer paymentd gives to the requests below (each status the
// example documents but 409 and 503, which need a request in flight or a
// store down) has its status documented for the operation, its body valid
// against the documented schema, and a replay the documented marker header.
func TestAnswersAsTheOpenAPIExampleDocuments(t *testing.T) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile("../../examples/openapi/paymentd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dsn := provisiontest.Database(t, services)
	d := startDaemon(t, nil, "--strategy", "pg-tx", "--listen", "127.0.0.1:0",
		"--redis-url", services.RedisURL, "--postgres-url", dsn, "--redis-prefix", fmt.Sprintf("paymentd-openapi-%d:", time.Now().UnixNano()))
	charge, acct, topUp := api.PathCharges, api.PathAccounts+"{id}", api.PathAccounts+"{id}"+api.TopUpSuffix
	for _, x := range []exchange{
		{"POST", api.PathCharges, charge, "oa-1", charge1250, http.StatusCreated},
		{"POST", api.PathCharges, charge, "oa-1", charge1250, http.StatusCreated}, // the replay
		{"POST", api.PathCharges, charge, "oa-1", `{"account":"acct-1","amount":99,"currency":"EUR"}`, http.StatusUnprocessableEntity},
		{"POST", api.PathCharges, charge, "", charge1250, http.StatusBadRequest},
		{"POST", api.PathCharges, charge, "oa-2", `{"account":"acct-1"}`, http.StatusBadRequest},
		{"POST", api.PathCharges, charge, "oa-3", `{"account":"acct-2","amount":5000000,"currency":"EUR"}`, api.StatusDeclined},
		{"POST", api.PathCharges, charge, "oa-4", `{"account":"nobody","amount":100,"currency":"EUR"}`, http.StatusNotFound},
		{"GET", api.PathAccounts + "acct-1", acct, "", "", http.StatusOK},
		{"GET", api.PathAccounts + "nobody", acct, "", "", http.StatusNotFound},
		{"POST", api.TopUpPath("acct-2"), topUp, "", `{"amount":100}`, http.StatusOK},
		{"POST", api.TopUpPath("acct-2"), topUp, "", `{"amount":"x"}`, http.StatusBadRequest},
		{"POST", api.TopUpPath("nobody"), topUp, "", `{"amount":100}`, http.StatusNotFound},
		{"GET", "/healthz", "/healthz", "", "", http.StatusOK},
	} {
		r := do(t, x.method, d.url+x.path, x.key, x.body)
		if r.status != x.want {
			t.Errorf("%s %s (key %q) %s: %d %s; want %d", x.method, x.path, x.key, x.body, r.status, r.body, x.want)
		}
		documented(t, doc, x, r)
	}
}

// documented checks r against what doc documents for x's operation.
func documented(t *testing.T, doc *openapi3.T, x exchange, r reply) {
	t.Helper()
	item := doc.Paths.Find(x.template)
	if item == nil || item.GetOperation(x.method) == nil {
		t.Fatalf("the example documents no %s %s", x.method, x.template)
	}
	resp := item.GetOperation(x.method).Responses.Status(r.status)
	if resp == nil || resp.Value == nil {
		t.Errorf("%s %s answered %d, which the example does not document", x.method, x.path, r.status)
		return
	}
	mt := resp.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil {
		t.Errorf("%s %s: the example documents no JSON body for %d", x.method, x.path, r.status)
		return
	}
	var body any
	if err := json.Unmarshal([]byte(r.body), &body); err != nil {
		t.Errorf("%s %s: %d with a body that is no JSON: %q", x.method, x.path, r.status, r.body)
		return
	}
	if err := mt.Schema.Value.VisitJSON(body, openapi3.EnableJSONSchema2020()); err != nil {
		t.Errorf("%s %s: the %d body %s does not fit the example's schema: %v", x.method, x.path, r.status, r.body, err)
	}
	if r.header.Get(api.HeaderReplayed) != "" && resp.Value.Headers[api.HeaderReplayed] == nil {
		t.Errorf("%s %s: a replay marked %s, which the example does not document for %d", x.method, x.path, api.HeaderReplayed, r.status)
	}
}
