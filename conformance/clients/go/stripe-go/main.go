// Command stripe-go is an idemchaos client under test: stripe-go
// (github.com/stripe/stripe-go/v82 v82.5.1) creating one charge per
// operation the way its README shows, through stripe.Client:
//
//	sc := stripe.NewClient(key, stripe.WithBackends(backends))
//	ch, err := sc.V1Charges.Create(ctx, &stripe.ChargeCreateParams{...})
//
// with Amount, Currency and Customer (the operation's account), one client
// for all operations, made in turn. Everything is the library's default
// (MaxNetworkRetries 2, its own Idempotency-Key per call, error-level
// logging to stderr, telemetry) except, in the stripe.BackendConfig given
// to stripe.NewBackendsWithConfig:
//
//   - URL: IDEMCHAOS_URL, the API idemchaos serves;
//   - HTTPClient: an http.Client with Timeout IDEMCHAOS_TIMEOUT_MS, the
//     library's default client but for its 80 s timeout;
//
// and the API key, a dummy. (The README's MaxNetworkRetries example
// spells the constructor stripe.NewBackendWithConfig; v82.5.1 has
// stripe.NewBackendsWithConfig.) It prints "OP succeeded CHARGE_ID" or
// "OP failed ERROR" per operation. Run it against the stripe shape:
//
//	go build -o /tmp/gc-stripe ./stripe-go
//	idemchaos client --shape stripe --name stripe-go -- /tmp/gc-stripe
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"

	"github.com/stripe/stripe-go/v82"

	"github.com/idemchaos/idemchaos/conformance/clients/go/internal/ops"
)

func main() {
	all, err := ops.Read()
	if err != nil {
		fmt.Fprintln(os.Stderr, "stripe-go:", err)
		os.Exit(2)
	}
	backends := stripe.NewBackendsWithConfig(&stripe.BackendConfig{
		URL:        stripe.String(os.Getenv("IDEMCHAOS_URL")), // the API idemchaos serves, not api.stripe.com
		HTTPClient: &http.Client{Timeout: ops.Timeout()},      // the timeout idemchaos asks for, not the default 80 s
	})
	sc := stripe.NewClient("sk_test_idemchaos", stripe.WithBackends(backends)) // a dummy key: idemchaos checks none
	for _, op := range all {
		ch, err := sc.V1Charges.Create(context.TODO(), &stripe.ChargeCreateParams{
			Amount:   stripe.Int64(op.Amount),
			Currency: stripe.String(op.Currency),
			Customer: stripe.String(op.Account),
		})
		if err != nil {
			ops.Tell(op, "", err)
			continue
		}
		ops.Tell(op, ch.ID, nil)
	}
}
