package api

import (
	"fmt"
	"net/http"
	"net/url"
)

// StatusDeclined is the status of a business refusal: the charge was
// decided and declined (insufficient funds). Unlike a 5xx, which says
// nothing about the charge, it is a completed result: a retry of its key
// with the same body must get it again, and must never charge (unless the
// profile says refusals are decided again: Profile.RedecideRefusals).
const StatusDeclined = http.StatusPaymentRequired

// TopUpSuffix ends the path of POST /v1/accounts/{id}/top-ups, which pays
// money into an account: what funds it after a declined charge.
const TopUpSuffix = "/top-ups"

// TopUpPath is the path of the top-up endpoint of account id.
func TopUpPath(id string) string { return PathAccounts + url.PathEscape(id) + TopUpSuffix }

// TopUp is the body of POST /v1/accounts/{id}/top-ups; the answer is the
// Account with its new balance.
type TopUp struct {
	Amount int64 `json:"amount"` // minor units
}

// Validate reports the first problem with t, or nil.
func (t TopUp) Validate() error {
	if t.Amount <= 0 {
		return fmt.Errorf("amount must be a positive number of minor units")
	}
	return nil
}
