// Package api is the contract between the harness and the payment API it
// targets: the request and response bodies of POST /v1/charges and GET
// /v1/accounts/{id}, the header names, the canonical fingerprint of a
// charge request, the contract profiles, and the failpoints and injections
// the harness may fire inside a target.
//
// It is shared by the built-in targets (server side) and the simulated
// clients (client side), depends on the standard library only, and is a
// stable API.
package api

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Header names used on the wire.
const (
	// HeaderKey carries the client's idempotency key (draft-ietf-httpapi-idempotency-key-header).
	HeaderKey = "Idempotency-Key"
	// HeaderAttempt carries a per-attempt id chosen by the harness. Targets log it and
	// store it with the ledger row, so every attempt the server saw is attributable.
	HeaderAttempt = "X-Idemchaos-Attempt"
	// HeaderReplayed marks a replayed response (Stripe's convention).
	HeaderReplayed = "Idempotent-Replayed"
	// HeaderReplica names the replica that answered.
	HeaderReplica = "X-Idemchaos-Replica"
)

// Paths of the payment API.
const (
	PathCharges  = "/v1/charges"
	PathAccounts = "/v1/accounts/"
)

// ChargeRequest is the body of POST /v1/charges. Amount is in minor units.
type ChargeRequest struct {
	Account  string `json:"account"`
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

// Validate reports the first problem with r, or nil.
func (r ChargeRequest) Validate() error {
	switch {
	case r.Account == "":
		return fmt.Errorf("account is required")
	case r.Amount <= 0:
		return fmt.Errorf("amount must be a positive number of minor units")
	case len(r.Currency) != 3:
		return fmt.Errorf("currency must be a three-letter code")
	}
	return nil
}

// Canonical returns the canonical encoding of r: JSON with a fixed field order
// and no insignificant white space, whatever the client sent.
func (r ChargeRequest) Canonical() []byte {
	b, _ := json.Marshal(r) // a struct of strings and ints cannot fail to encode
	return b
}

// Fingerprint is the hex SHA-256 of the canonical request body.
func (r ChargeRequest) Fingerprint() string {
	sum := sha256.Sum256(r.Canonical())
	return hex.EncodeToString(sum[:])
}

// Charge is the body of a 201 answer to POST /v1/charges.
type Charge struct {
	ID       string `json:"id"`
	Account  string `json:"account"`
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
	Balance  int64  `json:"balance"`
}

// Account is the body of GET /v1/accounts/{id}.
type Account struct {
	ID       string `json:"id"`
	Balance  int64  `json:"balance"`
	Currency string `json:"currency"`
}

// Error is the body of every non-2xx answer.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Error codes carried in Error.Code.
const (
	CodeMissingKey        = "idempotency_key_missing"
	CodeInFlight          = "idempotency_key_in_use"
	CodeMismatch          = "idempotency_key_reused"
	CodeInsufficientFunds = "insufficient_funds"
	CodeBadRequest        = "invalid_request"
	CodeStoreUnavailable  = "store_unavailable"
	CodeNotFound          = "not_found"
)
