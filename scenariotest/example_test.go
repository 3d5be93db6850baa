package scenariotest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/idemchaos/idemchaos/scenariotest"
)

// shop is a tiny payment service, the kind a team tests: POST /v1/charges
// with an Idempotency-Key, and a ledger in memory. With idempotent false it
// charges every request, as a service without the pattern does; with racy
// it checks the key, charges, then records the key: check-then-act. It
// tells the harness where it is (scenariotest.At): after its key check,
// before and after its charge, which costs nothing outside a run with
// Failpoints.
type shop struct {
	idempotent bool
	racy       bool
	mu         sync.Mutex
	charges    []scenariotest.Charge
	keys       map[string]*entry
}

type entry struct {
	body   string // the request, to refuse a changed payload
	done   bool
	answer []byte
}

func newShop(idempotent bool) *shop { return &shop{idempotent: idempotent, keys: map[string]*entry{}} }

// newRacyShop is a shop whose key check and record are two steps, with the
// charge between them.
func newRacyShop() *shop {
	s := newShop(true)
	s.racy = true
	return s
}

func (s *shop) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Account string `json:"account"`
		Amount  int64  `json:"amount"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"code":"invalid_request"}`, http.StatusBadRequest)
		return
	}
	key, body := r.Header.Get("Idempotency-Key"), fmt.Sprint(req)
	if s.idempotent {
		if key == "" {
			http.Error(w, `{"code":"idempotency_key_missing"}`, http.StatusBadRequest)
			return
		}
		if !s.claim(w, key, body) {
			return
		}
		scenariotest.At(r.Context(), scenariotest.AfterCheck, key)
	}
	scenariotest.At(r.Context(), scenariotest.BeforeCommit, key)
	answer := s.charge(key, req.Account, req.Amount)
	scenariotest.At(r.Context(), scenariotest.AfterCommit, key)
	if s.idempotent {
		s.complete(key, body, answer)
	}
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(answer)
}

// claim takes key for this request, or answers from the key's entry. The
// lock is never held while the payment runs: a duplicate of a request in
// flight gets 409 at once instead of waiting for it. A racy shop only
// looks: the key is recorded once charged (complete), so a duplicate that
// checks in between finds it free too.
func (s *shop) claim(w http.ResponseWriter, key, body string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.keys[key]; ok {
		s.replay(w, e, body)
		return false
	}
	if !s.racy {
		s.keys[key] = &entry{body: body}
	}
	return true
}

// charge moves the money and returns the answer.
func (s *shop) charge(key, account string, amount int64) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := fmt.Sprintf("ch_%d", len(s.charges)+1)
	s.charges = append(s.charges, scenariotest.Charge{ID: id, Key: key, Account: account, Amount: amount})
	answer, _ := json.Marshal(map[string]any{"id": id, "account": account, "amount": amount})
	return answer
}

// complete stores the answer of key's request for its retries.
func (s *shop) complete(key, body string, answer []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.keys[key]
	if e == nil { // a racy shop records the key only now
		e = &entry{body: body}
		s.keys[key] = e
	}
	e.done, e.answer = true, answer
}

func (s *shop) replay(w http.ResponseWriter, e *entry, body string) {
	switch {
	case e.body != body:
		http.Error(w, `{"code":"idempotency_key_reused"}`, http.StatusUnprocessableEntity)
	case !e.done:
		http.Error(w, `{"code":"idempotency_key_in_use"}`, http.StatusConflict)
	default:
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(e.answer)
	}
}

// ledger is the ground truth the harness reads after the run.
func (s *shop) ledger(_ context.Context, keys []string) ([]scenariotest.Charge, error) {
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []scenariotest.Charge
	for _, c := range s.charges {
		if want[c.Key] {
			out = append(out, c)
		}
	}
	return out, nil
}

func target(s *shop) scenariotest.Target {
	return scenariotest.Target{Handler: s, Ledger: scenariotest.LedgerFunc(s.ledger),
		LedgerInfo: scenariotest.LedgerInfo{ChargeIDs: true}}
}

// TestShopIsIdempotent is what a team writes: the correct shop passes
// every scenario that can run against it.
func TestShopIsIdempotent(t *testing.T) {
	scenariotest.RunAll(t, target(newShop(true)))
}

// A team's test of its own service: every scenario that can run against
// it from outside, each finding a test error at this line.
func ExampleRunAll() {
	var t *testing.T // the test's own t
	shop := newShop(true)
	scenariotest.RunAll(t, scenariotest.Target{Handler: shop, Ledger: scenariotest.LedgerFunc(shop.ledger)})
}

// Check runs one scenario and returns its result, for a test that wants
// more than pass or fail.
func Example() {
	shop := newShop(true)
	target := scenariotest.Target{Handler: shop, Ledger: scenariotest.LedgerFunc(shop.ledger),
		LedgerInfo: scenariotest.LedgerInfo{ChargeIDs: true}, Profile: scenariotest.IETF}
	for _, name := range []string{"concurrent-duplicates", "dropped-response", "payload-mismatch", "missing-key"} {
		res, err := scenariotest.Check(context.Background(), target, name)
		if err != nil {
			fmt.Println(name, err)
			continue
		}
		fmt.Printf("%s: %s, %d findings\n", name, res.Verdict, len(res.Findings))
	}
	// Output:
	// concurrent-duplicates: pass, 0 findings
	// dropped-response: pass, 0 findings
	// payload-mismatch: pass, 0 findings
	// missing-key: pass, 0 findings
}

// Explore runs every order of two requests of one key against a handler
// that calls its points (scenariotest.At, with Target.Failpoints), each
// request held at every point, and returns what each case proved: here
// the racy shop's check-then-act window, and its shortest failing order,
// A's steps and B's in two columns.
func ExampleExplore() {
	shop := newRacyShop()
	target := scenariotest.Target{Handler: shop, Ledger: scenariotest.LedgerFunc(shop.ledger),
		LedgerInfo: scenariotest.LedgerInfo{ChargeIDs: true}, Failpoints: true}
	res, err := scenariotest.Explore(context.Background(), target, "duplicate")
	if err != nil {
		fmt.Println(err)
		return
	}
	r := res[0]
	fmt.Println(r.Sentence())
	fmt.Printf("%d orders run, %d hold\n", len(r.Runs), r.Holding())
	if failing := r.Failing(); len(failing) > 0 {
		fmt.Printf("the shortest failing order, %s: %v\n", failing[0].Order, failing[0].Outcome.Anomalies)
		for _, line := range strings.Split(failing[0].Columns(r.Requests), "\n") {
			fmt.Println(strings.TrimRight(line, " "))
		}
	}
	// Output:
	// go-test, duplicate (2 requests, every order): double_charge in 68 of 70 orders
	// 70 orders run, 2 hold
	// the shortest failing order, AAABABBB: [double_charge replay_mismatch]
	// A                     B
	// send
	// after-check
	// before-commit
	//                       send
	// after-commit
	//                       after-check
	//                       before-commit
	//                       after-commit
}
