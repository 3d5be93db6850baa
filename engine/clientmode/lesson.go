package clientmode

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/provision"
)

// Lesson runs the client lesson (scenarios.ClientLesson's plan) on
// services: the same dropped answer met by a client that keeps its key,
// then by one that makes a new key per try.
func Lesson(ctx context.Context, services *provision.Services) ([]scenarios.ClientLessonRun, error) {
	var out []scenarios.ClientLessonRun
	for _, newKey := range []bool{false, true} {
		plan := scenarios.ClientLesson()
		name := "keeps-its-key"
		if newKey {
			name = "new-key-per-try"
		}
		rec, err := Run(ctx, Config{Func: lessonClient(newKey), Name: name, Shape: api.JSONShape, Seed: plan.Seed,
			Plan: &plan, Services: services, Bound: time.Minute, Log: io.Discard, Output: io.Discard})
		if err != nil {
			return nil, err
		}
		out = append(out, scenarios.ClientLessonRun{NewKeyPerTry: newKey, Record: rec, Result: scenarios.JudgeClient(rec)})
	}
	return out, nil
}

// lessonClient is the lesson's client, as a team writes one with
// net/http: three tries a quarter of a second apart, an Idempotency-Key
// made once per operation (or, with newKeyPerTry, once per try).
func lessonClient(newKeyPerTry bool) func(ctx context.Context, c Call) error {
	return func(ctx context.Context, c Call) error {
		body, err := json.Marshal(map[string]any{"account": c.Op.Account, "amount": c.Op.Amount, "currency": c.Op.Currency})
		if err != nil {
			return err
		}
		client := &http.Client{Timeout: c.Timeout}
		key := lessonKey()
		var last error
		for try := 1; try <= 3; try++ {
			if try > 1 {
				time.Sleep(250 * time.Millisecond)
			}
			if newKeyPerTry {
				key = lessonKey()
			}
			if last = lessonPost(ctx, client, c.URL, key, body); last == nil {
				return nil
			}
		}
		return last
	}
}

func lessonPost(ctx context.Context, client *http.Client, url, key string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+api.PathCharges, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("the payment API answered %d", res.StatusCode)
	}
	return nil
}

func lessonKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
