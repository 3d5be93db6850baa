package client

import (
	"net/http"
	"strings"
	"testing"
)

func TestShapeDefaultsAreTheBuiltInAPI(t *testing.T) {
	sh, err := Shape{}.compile()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := sh.render(BodyFields{Account: "acct-1", Amount: 250, Currency: "EUR", Key: "k"})
	if string(b) != `{"account":"acct-1","amount":250,"currency":"EUR"}` || sh.Path != "/v1/charges" || sh.KeyHeader != "Idempotency-Key" {
		t.Fatalf("body %s path %s header %s", b, sh.Path, sh.KeyHeader)
	}
	if !sh.acked(201) || !sh.acked(200) || sh.acked(409) {
		t.Errorf("default success is any 2xx")
	}
}

func TestShapeCustom(t *testing.T) {
	s := Shape{Path: "/pay", Body: `{"c":"{{.Account}}","cents":{{.Amount}},"ref":"{{.Key}}"}`, Success: []int{201},
		ChargeID: "data.id", ReplayHeader: "X-Replayed"}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	sh, _ := s.compile()
	b, _ := sh.render(BodyFields{Account: "a", Amount: 5, Key: "k1"})
	if string(b) != `{"c":"a","cents":5,"ref":"k1"}` {
		t.Errorf("body %s", b)
	}
	if sh.acked(200) || !sh.acked(201) {
		t.Errorf("success must be exactly 201")
	}
	if id := sh.chargeID([]byte(`{"data":{"id":12345678901234567}}`)); id != "12345678901234567" {
		t.Errorf("numeric charge id %q", id)
	}
	if id := sh.chargeID([]byte(`{"data":"x"}`)); id != "" {
		t.Errorf("charge id from a non-object: %q", id)
	}
	if !sh.replayed(http.Header{"X-Replayed": {"true"}}) {
		t.Errorf("replay header not read")
	}
}

func TestShapeRejects(t *testing.T) {
	cases := map[string]Shape{
		"body template":  {Body: "{{.Nope}}"},
		"must start":     {Path: "pay"},
		"is not a 2xx":   {Success: []int{404}},
		"body template:": {Body: "{{"},
	}
	for want, s := range cases {
		err := s.Check()
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: %v; want one line with %q", s, err, want)
		}
	}
}
