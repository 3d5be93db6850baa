package conformance

import (
	"slices"

	"github.com/idemchaos/idemchaos/scenarios/check"
)

// ClientFinding explains an anomaly a client library shows, by its own
// code: the sentence of the table, and the upstream bug report where it
// is a defect rather than documented behaviour.
type ClientFinding struct {
	// Clients are the rows it explains, by name.
	Clients []string
	Anomaly check.Anomaly
	// Text is one sentence that cites the library's file and function.
	Text   string
	Report *Report
}

// ClientFindings explain every anomaly the client table shows; the client
// conformance run fails on one that none explains.
var ClientFindings = []ClientFinding{
	{Clients: []string{"stripe-go"}, Anomaly: check.ToldFailedCharged,
		Text: "after the in-flight reset the retry meets the key in flight and gets a 409 with a Stripe error body, which is not retried: " +
			"`stripe.go: (*BackendImplementation).shouldRetry` returns `err.canRetry()` for every API error before it reaches its checks of " +
			"Stripe-Should-Retry, 409 and >= 500, and `error.go: (*Error).canRetry` is true only for a 429 lock_timeout (the early return came " +
			"with v82.1.0's V2 support); the 409 reaches the user as a failure while the first try's charge commits, as does a 503 met after an " +
			"answer was lost.",
		Report: &Report{Title: "stripe-go v82.1.0+: an API error is never retried on 409, 5xx or Stripe-Should-Retry: true, only on a 429 lock_timeout",
			Steps: "A client whose BackendConfig URL is a test server, MaxNetworkRetries left at its default 2; the server answers the first " +
				"POST /v1/charges 409 with {\"error\":{\"type\":\"invalid_request_error\",\"code\":\"idempotency_key_in_use\"}} (with or without " +
				"Stripe-Should-Retry: true), or 503 with an api_error body, then 200; call V1Charges.Create.",
			Expected: "the call is retried with the same Idempotency-Key and returns the charge, as the README says (\"certain API responses like " +
				"a status 409 Conflict\") and as v82.0 did.",
			Actual: "one request is sent and the *stripe.Error returned: shouldRetry's `err.(retrier)` return leaves (*Error).canRetry alone to " +
				"decide, and its only case is 429 lock_timeout; stripe-go's TestShouldRetry passes err=nil for its 409, 5xx and header cases, so " +
				"no test reaches that return."}},
	{Clients: []string{"openai-node"}, Anomaly: check.RetryWithoutKey,
		Text: "every retry of a failed charge goes out with no key: `src/client.ts: buildHeaders` adds an idempotency header only when " +
			"`this.idempotencyHeader` is set, which openai-node's client never does, while `makeRequest` and `shouldRetry` retry a connection " +
			"error, a timeout, 409, 429 and >= 500 whatever the method; after an answer lost past the commit each retry is a new payment " +
			"(two or three charges for one operation).",
		Report: &Report{Title: "openai-node: a POST is retried after a timeout or a reset with no idempotency key, and the idempotencyKey request option is dropped",
			Steps: "client.post('/x', {body, idempotencyKey: 'k1'}) against a server that commits the request, then resets the connection " +
				"(or answers after the client's timeout).",
			Expected: "each try carries the key (src/internal/request-options.ts documents idempotencyKey as \"A unique key for this request to " +
				"enable idempotency\"), or a POST is not re-sent once its request was written.",
			Actual: "no try carries a key header; the SDK re-sends the POST up to twice (maxRetries 2), and a server that sees no key " +
				"executes each."}},
	{Clients: []string{"go-retryablehttp"}, Anomaly: check.ToldFailedCharged,
		Text: "after the in-flight reset Go's net/http re-sends the keyed POST at once, unseen by the library (`net/http: Request.isReplayable`: it " +
			"carries an Idempotency-Key), the re-send meets the key in flight and gets 409, and `client.go: baseRetryPolicy` has no case for 409: " +
			"the response \"is returned and left to the caller to interpret\" (README), so the caller tells a failure while the charge commits; " +
			"documented, and the caller's to handle (retry a 409 with the same key, after a back-off).",
		Report: &Report{Title: "go-retryablehttp: a 409 to a request carrying an Idempotency-Key is handed back at once, while the request it conflicts with commits",
			Steps: "NewClient() defaults; POST with Idempotency-Key K to a server that resets the connection while it goes on charging K; Go's " +
				"transport re-sends the keyed POST at once and the server answers it 409 (K in flight).",
			Expected: "a request that carries an Idempotency-Key is retried on 409 with back-off, as on 429 (the IETF draft's 409 means \"retry " +
				"later\"), so the caller gets the charge's answer; or the README says a keyed POST needs a CheckRetry that does.",
			Actual: "baseRetryPolicy returns false for 409 and Do returns the 409 after one request of its own; the caller reports a " +
				"failure for a charge that succeeded."}},
	{Clients: []string{"axios-retry"}, Anomaly: check.ToldFailedCharged,
		Text: "a timeout is not retried (`dist/cjs/index.js: isNetworkError` excludes ECONNABORTED), nor a 409, 429 or 503 of a POST " +
			"(`isIdempotentRequestError`), while a reset is retried at once whatever the method (`isNetworkError`, `noDelay`): after a slow " +
			"answer, and after the in-flight reset whose immediate retry meets the key in flight (409), the caller tells a failure for a " +
			"charge that commits; documented (the README retries \"a network error or a 5xx error on an idempotent request\").",
		Report: &Report{Title: "axios-retry: a POST is re-sent after a network error whatever its method, but the 409 or 503 that answers the re-send is final",
			Steps: "axiosRetry(axios, {retries: 3}); axios.post with a caller's Idempotency-Key to a server that resets the connection while it " +
				"goes on charging, then answers the immediate re-send 409 (the key in flight); or answers after the request's timeout.",
			Expected: "one rule for the method: either a POST is not re-sent (isNetworkError ignores the method) or, once it is, its 409 and 503 " +
				"are retried after a delay too; and a timeout of a request that carries a key is retried like a reset.",
			Actual: "the re-send goes out at once (noDelay), its 409 is returned to the caller (isIdempotentRequestError is false for a POST), " +
				"and an ECONNABORTED timeout is never retried: the caller tells a failure for a charge that committed."}},
}

// ExplainClient finds the finding that explains anomaly a of client (nil:
// none does).
func ExplainClient(client string, a check.Anomaly) *ClientFinding {
	for i, f := range ClientFindings {
		if f.Anomaly == a && slices.Contains(f.Clients, client) {
			return &ClientFindings[i]
		}
	}
	return nil
}
