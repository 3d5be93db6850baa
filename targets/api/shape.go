package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Shape is one form a payment API takes on the wire, for client mode
// (idemchaos serving the API to a user's client): where a charge is
// posted, how its body is read and compared, and how the built-in
// answers (a Charge or an Error as JSON) are written back. A new API shape
// is one Shape value.
type Shape struct {
	Name string
	Path string // the charge endpoint
	// Profile is the contract the server keeps in this shape: its
	// statuses for a missing key, a duplicate in flight and a mismatch.
	Profile Profile
	// Decode reads a charge request from a body sent with contentType,
	// and returns the body's canonical form: two bodies a client meant as
	// the same request have the same form, field order aside.
	Decode func(contentType string, body []byte) (ChargeRequest, string, error)
	// Answer turns the built-in answer (status and JSON body) into the
	// shape's, its content type JSON.
	Answer func(status int, body []byte) (int, []byte)
	// NoRetryAfter says the API sends no Retry-After with a 429 or 503
	// (Stripe's does not: stripe-node 22.3.1 dropped its support, as
	// "the Stripe API doesn't ... send Retry-After"), so a client is not
	// judged on one.
	NoRetryAfter bool
}

// OptionalKey is the IETF profile for a server that accepts a charge
// without a key (not idempotent, as Stripe does): what client mode serves
// by default, so that a client that sends no key is seen retrying.
var OptionalKey = Profile{Name: "ietf-optional-key", MissingKey: 0, InFlight: 409, Mismatch: 422}

// JSONShape is the built-in API: POST /v1/charges with a JSON
// ChargeRequest, answered as the built-in targets answer.
var JSONShape = Shape{Name: "json", Path: PathCharges, Profile: OptionalKey,
	Decode: decodeJSON, Answer: func(status int, body []byte) (int, []byte) { return status, body }}

// StripeShape is Stripe's charges API: POST /v1/charges form-encoded
// (amount, currency, customer: the account; other fields such as
// metadata[...] are kept for the comparison and otherwise ignored),
// answered 200 with a charge object or an {"error": {...}} object.
var StripeShape = Shape{Name: "stripe", Path: PathCharges, Profile: Stripe, Decode: decodeForm, Answer: stripeAnswer,
	NoRetryAfter: true}

var shapes = []Shape{JSONShape, StripeShape}

// ShapeNamed returns the API shape of that name.
func ShapeNamed(name string) (Shape, error) {
	for _, s := range shapes {
		if s.Name == name {
			return s, nil
		}
	}
	return Shape{}, fmt.Errorf("unknown API shape %q (want %s)", name, strings.Join(ShapeNames(), " or "))
}

// ShapeNames lists the API shapes.
func ShapeNames() []string {
	out := make([]string, len(shapes))
	for i, s := range shapes {
		out[i] = s.Name
	}
	return out
}

// decodeJSON reads the built-in body: the three fields are required; any
// other member is kept in the canonical form (members sorted).
func decodeJSON(contentType string, body []byte) (ChargeRequest, string, error) {
	var r ChargeRequest
	var all map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&all); err != nil {
		return r, "", fmt.Errorf("body is not a JSON object: %v", err)
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return r, "", fmt.Errorf("body: %v", err)
	}
	canonical, _ := json.Marshal(all) // maps marshal with sorted keys
	return r, string(canonical), r.Validate()
}

// decodeForm reads a Stripe-style form body.
func decodeForm(contentType string, body []byte) (ChargeRequest, string, error) {
	v, err := url.ParseQuery(string(body))
	if err != nil {
		return ChargeRequest{}, "", fmt.Errorf("body is not form-encoded: %v", err)
	}
	r := ChargeRequest{Account: v.Get("customer"), Currency: v.Get("currency")}
	if r.Amount, err = strconv.ParseInt(v.Get("amount"), 10, 64); err != nil {
		return r, v.Encode(), fmt.Errorf("amount must be an integer number of minor units")
	}
	return r, v.Encode(), r.Validate() // Encode sorts by key
}

// stripeCharge is the part of Stripe's charge object a client reads.
type stripeCharge struct {
	ID       string `json:"id"`
	Object   string `json:"object"`
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
	Customer string `json:"customer"`
	Paid     bool   `json:"paid"`
	Status   string `json:"status"`
}

type stripeError struct {
	Error struct {
		Type    string `json:"type"`
		Code    string `json:"code,omitempty"`
		Message string `json:"message"`
	} `json:"error"`
}

// stripeAnswer writes a built-in answer as Stripe does: a created charge
// is 200 with a charge object, an error an error object of Stripe's types.
func stripeAnswer(status int, body []byte) (int, []byte) {
	if status/100 == 2 {
		var c Charge
		if json.Unmarshal(body, &c) == nil {
			out, _ := json.Marshal(stripeCharge{ID: c.ID, Object: "charge", Amount: c.Amount, Currency: c.Currency,
				Customer: c.Account, Paid: true, Status: "succeeded"})
			return http.StatusOK, out
		}
	}
	var e Error
	_ = json.Unmarshal(body, &e)
	var out stripeError
	out.Error.Type, out.Error.Code, out.Error.Message = stripeErrorType(status, e.Code), e.Code, e.Message
	b, _ := json.Marshal(out)
	return status, b
}

func stripeErrorType(status int, code string) string {
	switch {
	case code == CodeInFlight || code == CodeMismatch || code == CodeMissingKey:
		return "idempotency_error"
	case status == http.StatusPaymentRequired:
		return "card_error"
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status >= 500:
		return "api_error"
	}
	return "invalid_request_error"
}
