// Command retryablehttp is an idemchaos client under test:
// github.com/hashicorp/go-retryablehttp v0.7.8 as its README shows it,
// retryablehttp.NewClient() with its defaults (RetryMax 4, RetryWaitMin
// 1 s, RetryWaitMax 30 s, DefaultRetryPolicy, DefaultBackoff, its default
// logger on stderr), one client for all operations, made in turn:
//
//	req, err := retryablehttp.NewRequest("POST", url, body)
//	resp, err := client.Do(req)
//
// posting the json shape's charge, {"account","amount","currency"} to
// IDEMCHAOS_URL/v1/charges. The caller, not the library, sets
// Idempotency-Key: a random UUID-shaped key from crypto/rand, made once per
// operation before its first try. The one setting changed is
// client.HTTPClient.Timeout, to IDEMCHAOS_TIMEOUT_MS (the default pooled
// client has none). The README shows no way to quiet the logger, so its
// lines go to stderr. It prints "OP succeeded CHARGE_ID" on a 2xx, else
// "OP failed ERROR" (the library's error, or the status and body it
// returned). Run it against the json shape:
//
//	go build -o /tmp/gc-retryablehttp ./retryablehttp
//	idemchaos client --shape json --name retryablehttp -- /tmp/gc-retryablehttp
package main

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/idemchaos/idemchaos/conformance/clients/go/internal/ops"
)

func main() {
	all, err := ops.Read()
	if err != nil {
		fmt.Fprintln(os.Stderr, "retryablehttp:", err)
		os.Exit(2)
	}
	client := retryablehttp.NewClient()
	client.HTTPClient.Timeout = ops.Timeout() // the timeout idemchaos asks for; the default client has none
	url := os.Getenv("IDEMCHAOS_URL") + "/v1/charges"
	for _, op := range all {
		id, err := charge(client, url, op)
		ops.Tell(op, id, err)
	}
}

// charge makes one operation's charge under a key of its own.
func charge(client *retryablehttp.Client, url string, op ops.Op) (string, error) {
	body, err := json.Marshal(map[string]any{"account": op.Account, "amount": op.Amount, "currency": op.Currency})
	if err != nil {
		return "", err
	}
	req, err := retryablehttp.NewRequest("POST", url, body)
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", newKey())
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode/100 != 2 {
		return "", fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(answer))
	}
	var c struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(answer, &c); err != nil {
		return "", err
	}
	return c.ID, nil
}

// newKey is a random UUID (version 4) from crypto/rand.
func newKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never returns an error (crypto/rand)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
