package scenariotest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenariotest"
	"github.com/idemchaos/idemchaos/sim/history"
)

// hostile charges every request (no idempotency) and answers with markup in
// its body, its error and its charge id: all of it reaches the report.
type hostile struct {
	mu      sync.Mutex
	charges []history.Charge
}

const payload = `<script>alert("pwned")</script><img src=x onerror=alert(1)>`

func (h *hostile) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Account string `json:"account"`
		Amount  int64  `json:"amount"`
	}
	_ = json.NewDecoder(r.Body).Decode(&req)
	h.mu.Lock()
	id := fmt.Sprintf("<b>ch_%d</b>", len(h.charges)+1)
	h.charges = append(h.charges, history.Charge{ID: id, Key: r.Header.Get("Idempotency-Key"), Account: req.Account, Amount: req.Amount})
	h.mu.Unlock()
	w.WriteHeader(http.StatusCreated)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // raw markup on the wire
	_ = enc.Encode(map[string]any{"id": id, "note": payload})
}

func TestHTMLReportShowsTargetMarkupAsText(t *testing.T) {
	h := &hostile{}
	ledger := func(_ context.Context, keys []string) []history.Charge {
		h.mu.Lock()
		defer h.mu.Unlock()
		return append([]history.Charge(nil), h.charges...)
	}
	tg := scenariotest.Target{Handler: h, LedgerInfo: scenariotest.LedgerInfo{ChargeIDs: true},
		Ledger: scenariotest.LedgerFunc(func(ctx context.Context, keys []string) ([]history.Charge, error) { return ledger(ctx, keys), nil })}
	res, err := scenariotest.Check(t.Context(), tg, "dropped-response")
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != scenarios.Fail || len(res.Timelines) == 0 {
		t.Fatalf("verdict %s with %d timelines; want a failure with evidence", res.Verdict, len(res.Timelines))
	}
	var b strings.Builder
	if err := reports.WriteHTML(&b, results.Document{Command: "run", Results: []scenarios.Result{res}}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, live := range []string{"<script>alert", "<img src=x", "<b>ch_"} {
		if strings.Contains(page, live) {
			t.Errorf("the report carries live markup %q from the target", live)
		}
	}
	for _, text := range []string{"&lt;b&gt;ch_", "&lt;script&gt;alert"} {
		if !strings.Contains(page, text) {
			t.Errorf("the target's markup %q is not shown as text", text)
		}
	}
	if strings.Count(page, "<script") > 0 {
		t.Errorf("the report has a <script> element")
	}
}
