package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/targets/api"
)

func TestShapesReadTheSameChargeAndCompareBodiesByContent(t *testing.T) {
	want := api.ChargeRequest{Account: "acct-1", Amount: 1250, Currency: "usd"}
	cases := []struct {
		shape     api.Shape
		a, b, alt string // a and b mean the same request; alt another body
	}{
		{api.JSONShape, `{"account":"acct-1","amount":1250,"currency":"usd","note":"x"}`,
			`{"note":"x", "currency":"usd","amount":1250,"account":"acct-1"}`,
			`{"account":"acct-1","amount":1250,"currency":"usd","note":"y"}`},
		{api.StripeShape, "amount=1250&currency=usd&customer=acct-1&metadata%5Bop%5D=op-1",
			"metadata%5Bop%5D=op-1&customer=acct-1&currency=usd&amount=1250",
			"amount=1250&currency=usd&customer=acct-1&metadata%5Bop%5D=op-2"},
	}
	for _, c := range cases {
		ra, ca, errA := c.shape.Decode("", []byte(c.a))
		rb, cb, errB := c.shape.Decode("", []byte(c.b))
		_, calt, _ := c.shape.Decode("", []byte(c.alt))
		if errA != nil || errB != nil || ra != want || rb != want {
			t.Errorf("%s: read %+v %v and %+v %v, want %+v", c.shape.Name, ra, errA, rb, errB, want)
		}
		if ca != cb || ca == calt {
			t.Errorf("%s: canonical forms %q, %q, %q: want the first two equal, the third apart", c.shape.Name, ca, cb, calt)
		}
	}
}

func TestShapesRefuseWhatIsNotACharge(t *testing.T) {
	for _, c := range []struct {
		shape api.Shape
		body  string
	}{
		{api.JSONShape, `[1]`}, {api.JSONShape, `{"account":"a","amount":-1,"currency":"usd"}`},
		{api.StripeShape, "amount=twelve&currency=usd&customer=a"}, {api.StripeShape, "amount=5&currency=usd"},
	} {
		if _, _, err := c.shape.Decode("", []byte(c.body)); err == nil {
			t.Errorf("%s read %q as a charge", c.shape.Name, c.body)
		}
	}
}

func TestStripeShapeAnswersAsStripe(t *testing.T) {
	charge, _ := json.Marshal(api.Charge{ID: "ch_1", Account: "acct-1", Amount: 1250, Currency: "usd"})
	status, body := api.StripeShape.Answer(http.StatusCreated, charge)
	var c map[string]any
	if err := json.Unmarshal(body, &c); err != nil || status != http.StatusOK || c["object"] != "charge" || c["customer"] != "acct-1" {
		t.Errorf("a charge: %d %s", status, body)
	}
	refusal, _ := json.Marshal(api.Error{Code: api.CodeInFlight, Message: "in flight"})
	status, body = api.StripeShape.Answer(http.StatusConflict, refusal)
	if status != http.StatusConflict || !strings.Contains(string(body), `"type":"idempotency_error"`) {
		t.Errorf("a duplicate in flight: %d %s", status, body)
	}
	if _, err := api.ShapeNamed("soap"); err == nil || !strings.Contains(err.Error(), "json or stripe") {
		t.Errorf("an unknown shape: %v", err)
	}
}
