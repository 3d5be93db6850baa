package conformance

import (
	"fmt"
	"slices"
)

// Client is one row of the client table: an SDK or a retry library at a
// pinned version, driven by a small script of its documented usage
// (conformance/clients/), run by client mode against the API idemchaos
// serves in the shape the library speaks.
type Client struct {
	// Name names the row ("stripe-node").
	Name string
	// Library is what is under test, Version the exact release its lock
	// file pins, Source where its code lives (for the citations).
	Library, Version, Source string
	// Kind is Node (Dir holds package.json, its lock file and Main, the
	// script) or Go (Dir is a module, Main its package that is the driver).
	Kind      Kind
	Dir, Main string
	// Shape is the API shape the library speaks ("stripe", "json").
	Shape string
	// Key says who makes the Idempotency-Key, in a few words.
	Key string
	// Setup says in one line how the driver uses the library.
	Setup string
	// Does is what the library's code does with a key, a failure and a
	// Retry-After, read in the pinned version, each with where.
	Does []Promise
}

// Clients is every row of the client table, in table order.
var Clients = []Client{
	{Name: "stripe-node", Library: "stripe-node", Version: "stripe 23.2.0", Source: "stripe/stripe-node v23.2.0 (cjs/ as published)",
		Kind: Node, Dir: "conformance/clients/stripe-node", Main: "charge.js", Shape: "stripe",
		Key:   "the SDK, once per call (`stripe-node-retry-<uuid>`)",
		Setup: "the README's Stripe(key, {host, port, protocol, timeout}) pointed at idemchaos, then charges.create({amount, currency, customer}); retries as the SDK defaults",
		Does: []Promise{
			{"every v1 POST gets `Idempotency-Key: stripe-node-retry-<uuid>` once, and each retry re-sends the same headers", "cjs/RequestSender.js: _makeHeaders, _request (retryRequest)"},
			{"a connection error, a timeout, a 409 and any status >= 500 are retried, 2 times by default (the README's table says 1), about 500 ms apart (`Math.max(initialNetworkRetryDelay, sleepSeconds)`)", "cjs/RequestSender.js: _shouldRetry, _getSleepTimeInMS; cjs/platform/PlatformFunctions.js: getDefaultMaxNetworkRetries"},
			{"a 429 is not retried unless the answer says `Stripe-Should-Retry: true`; Retry-After is not read (support removed in 22.3.1: the Stripe API sends none)", "cjs/RequestSender.js: _shouldRetry; CHANGELOG.md 22.3.1 (#2781)"},
		}},
	{Name: "stripe-go", Library: "stripe-go", Version: "github.com/stripe/stripe-go/v82 v82.5.1", Source: "stripe/stripe-go v82.5.1",
		Kind: Go, Dir: "conformance/clients/go", Main: "./stripe-go", Shape: "stripe",
		Key:   "the SDK, once per call (a UUID on every POST)",
		Setup: "stripe.NewClient(key, stripe.WithBackends(stripe.NewBackendsWithConfig(&BackendConfig{URL, HTTPClient}))), then V1Charges.Create; retries as the SDK defaults",
		Does: []Promise{
			{"a POST gets `Idempotency-Key: NewIdempotencyKey()` once, and the retry loop re-sends the same request", "stripe.go: (*BackendImplementation).NewRequest, requestWithRetriesAndTelemetry"},
			{"an error that is not the API's (a reset, a timeout) is retried, 2 times by default, 500 ms then about 800 ms apart", "stripe.go: shouldRetry (\"Do retry every other type of non-Stripe error\"), sleepTime; DefaultMaxNetworkRetries"},
			{"an answer with a Stripe error body is retried only when it is a 429 lock_timeout: the early `err.(retrier)` return comes before the checks of Stripe-Should-Retry, 409 and >= 500; Retry-After is not read", "stripe.go: shouldRetry; error.go: (*Error).canRetry"},
		}},
	{Name: "modern-treasury", Library: "modern-treasury (Stainless-generated)", Version: "modern-treasury 3.3.0",
		Source: "Modern-Treasury/modern-treasury-node v3.3.0 (src/ as published)", Kind: Node, Dir: "conformance/clients/modern-treasury", Main: "charge.js",
		Shape: "json", Key: "the SDK, once per call (`stainless-node-retry-<uuid>`)",
		Setup: "client.post('/v1/charges', {body}), the README's way to an endpoint the SDK has no method for; retries as the SDK defaults",
		Does: []Promise{
			{"a request that is not a GET gets `Idempotency-Key: stainless-node-retry-<uuid>`, written onto its options once, which every retry reuses", "src/client.ts: constructor (this.idempotencyHeader = 'Idempotency-Key'), buildHeaders, retryRequest"},
			{"a connection error, a timeout, 408, 409, 429 and >= 500 are retried, 2 times by default, 0.5 s doubling with jitter", "src/client.ts: makeRequest, shouldRetry, calculateDefaultRetryTimeoutMillis"},
			{"a Retry-After (or retry-after-ms) under 60 s sets the wait", "src/client.ts: retryRequest"},
		}},
	{Name: "openai-node", Library: "openai-node (Stainless-generated)", Version: "openai 6.49.0", Source: "openai/openai-node v6.49.0 (src/ as published)",
		Kind: Node, Dir: "conformance/clients/openai-node", Main: "charge.js", Shape: "json", Key: "none: the SDK sets no idempotency header",
		Setup: "client.post('/charges', {body}) on a baseURL of idemchaos's /v1, the README's way to an undocumented endpoint; retries as the SDK defaults",
		Does: []Promise{
			{"no idempotency header is ever sent: `this.idempotencyHeader` is never set, so buildHeaders skips it, and the documented `idempotencyKey` request option is dropped with it", "src/client.ts: buildHeaders; src/internal/request-options.ts: idempotencyKey"},
			{"a connection error, a timeout, 408, 409, 429 and >= 500 are retried, a POST included, 2 times by default", "src/client.ts: makeRequest, shouldRetry"},
			{"a Retry-After (or retry-after-ms) sets the wait", "src/client.ts: retryRequest"},
		}},
	{Name: "go-retryablehttp", Library: "hashicorp/go-retryablehttp", Version: "github.com/hashicorp/go-retryablehttp v0.7.8",
		Source: "hashicorp/go-retryablehttp v0.7.8", Kind: Go, Dir: "conformance/clients/go", Main: "./retryablehttp", Shape: "json",
		Key: "the caller, once per operation", Setup: "retryablehttp.NewClient() defaults (HTTPClient.Timeout set), NewRequest(\"POST\", ...) with the caller's Idempotency-Key, client.Do",
		Does: []Promise{
			{"the caller's headers are re-sent on every retry (a shallow copy of the request)", "client.go: (*Client).Do"},
			{"a connection error or timeout, 429 and >= 500 but 501 are retried, 4 times by default, 1 s doubling; a 409 and any other 4xx are returned to the caller", "client.go: baseRetryPolicy, DefaultBackoff"},
			{"a Retry-After of a 429 or 503 sets the wait", "client.go: DefaultBackoff, parseRetryAfterHeader"},
			{"beneath it, Go's net/http re-sends a POST that carries an Idempotency-Key at once when its reused connection dies before an answer, unseen by the library's retry count", "net/http: Request.isReplayable, (*persistConn).shouldRetryRequest"},
		}},
	{Name: "axios-retry", Library: "axios-retry on axios", Version: "axios 1.21.1, axios-retry 4.5.0", Source: "softonic/axios-retry v4.5.0 (dist/cjs/ as published)",
		Kind: Node, Dir: "conformance/clients/axios-retry", Main: "charge.js", Shape: "json", Key: "the caller, once per operation",
		Setup: "axiosRetry(axios, {retries: 3}) as its README shows, then axios.post with the caller's Idempotency-Key and a timeout",
		Does: []Promise{
			{"the caller's config, its headers and body, is re-sent unchanged on a retry", "dist/cjs/index.js: handleRetry"},
			{"a network error is retried whatever the method, a POST included, at once (`noDelay`); a timeout (ECONNABORTED) is not", "dist/cjs/index.js: isNetworkError (CODE_EXCLUDE_LIST), noDelay"},
			{"a 5xx or 429 is retried only for an idempotent method, so never for a POST; a 409 never; Retry-After is read only on those paths", "dist/cjs/index.js: isIdempotentRequestError, isRetryableError"},
		}},
}

// LookupClients finds the clients named, in table order; names nil means
// all.
func LookupClients(names []string) ([]Client, error) {
	if len(names) == 0 {
		return slices.Clone(Clients), nil
	}
	for _, n := range names {
		if !slices.ContainsFunc(Clients, func(c Client) bool { return c.Name == n }) {
			return nil, fmt.Errorf("unknown conformance client %q (want %s)", n, ClientNames())
		}
	}
	var out []Client
	for _, c := range Clients {
		if slices.Contains(names, c.Name) {
			out = append(out, c)
		}
	}
	return out, nil
}

// ClientNames lists the clients' names, in table order.
func ClientNames() []string {
	out := make([]string, len(Clients))
	for i, c := range Clients {
		out[i] = c.Name
	}
	return out
}

// Command is how a person runs the client's driver from the repository
// root, as `idemchaos client -- COMMAND` takes it (a Node driver once
// `npm ci` has run in its directory).
func (c Client) Command() string {
	if c.Kind == Go {
		return "go -C " + c.Dir + " run " + c.Main
	}
	return "node " + c.Dir + "/" + c.Main
}
