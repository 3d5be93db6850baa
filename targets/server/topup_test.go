package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/targets/api"
)

// topUp POSTs a top-up body to account id and returns the status and body.
func (tg *target) topUp(t *testing.T, id, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(tg.url+api.TopUpPath(id), "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestTopUpEndpoint: POST /v1/accounts/{id}/top-ups credits the account
// and answers its new balance; a bad body is 400, an unknown account 404.
// After the top-up a declined charge of a new key goes through.
func TestTopUpEndpoint(t *testing.T) {
	tg := newTarget(t, "pg-tx", api.IETF)
	big := api.ChargeRequest{Account: "poor", Amount: 80, Currency: "EUR"}
	if a := tg.post(t, "k-1", "a1", big); a.status != api.StatusDeclined {
		t.Fatalf("80 of 50: got %d %s; want %d", a.status, a.raw, api.StatusDeclined)
	}
	status, body := tg.topUp(t, "poor", `{"amount":80}`)
	var acct api.Account
	if err := json.Unmarshal([]byte(body), &acct); status != http.StatusOK || err != nil || acct.Balance != 130 {
		t.Fatalf("top-up: %d %s; want 200 with balance 130", status, body)
	}
	if a := tg.post(t, "k-2", "a2", big); a.status != http.StatusCreated {
		t.Fatalf("a new key after the top-up: got %d %s; want 201", a.status, a.raw)
	}
	for _, bad := range []string{`{"amount":0}`, `{"amount":-1}`, `{"amount":"1"}`, `{"amount":1,"x":2}`, `nope`} {
		if status, body := tg.topUp(t, "poor", bad); status != http.StatusBadRequest {
			t.Errorf("top-up %s: %d %s; want 400", bad, status, body)
		}
	}
	if status, _ := tg.topUp(t, "nobody", `{"amount":1}`); status != http.StatusNotFound {
		t.Errorf("top-up of an unknown account: %d; want 404", status)
	}
}
