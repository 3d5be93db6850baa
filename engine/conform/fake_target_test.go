package conform

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/ledger"
)

// The test binary's helper processes, named by its first argument.
const (
	fakeTargetArg = "conform-fake-target"
	harnessArg    = "conform-harness"
)

// fakeTarget is a target process as engine/conform starts one: it takes
// the arguments deploy gives a target (--listen, --postgres-url,
// --redis-url, and paymentd's), says where it serves as the conformance
// targets do ("faketarget: listening on URL", or as paymentd does with
// --paymentd), and stops on SIGINT. It serves the payment API's charge,
// keys kept in its memory (a duplicate replays, another payload gets
// 422), each charge's ledger row written --late after its answer; and,
// for the tests, GET /args (its arguments from fakeTargetArg on), /db and
// /redis (a query through its store links) and /spew (a line of 100 KiB,
// then 256 KiB more of output).
//
// Test switches: --exit-with MSG (print MSG, exit 1 before serving),
// --die-if-exists FILE (refuse to start if FILE exists, else write its
// arguments there, one a line), --silent (never say where it serves),
// --long-line (a line of 100 KiB before the serving line),
// --ignore-sigint; --mark is only carried.
func fakeTarget(args []string) int {
	f := map[string]string{}
	for i := 0; i < len(args); i++ {
		name := strings.TrimPrefix(args[i], "--")
		switch name {
		case "failpoints", "ignore-sigint", "silent", "paymentd", "long-line":
			f[name] = "true"
		default:
			if i+1 < len(args) {
				f[name] = args[i+1]
				i++
			}
		}
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "faketarget: "+format+"\n", a...)
		return 1
	}
	var ctx context.Context
	var stop context.CancelFunc
	if f["ignore-sigint"] != "" { // then it runs until killed (or for an hour)
		signal.Ignore(os.Interrupt)
		ctx, stop = context.WithTimeout(context.Background(), time.Hour)
	} else {
		ctx, stop = signal.NotifyContext(context.Background(), os.Interrupt)
	}
	defer stop()
	fmt.Println("faketarget: starting")
	if msg := f["exit-with"]; msg != "" {
		return fail("%s", msg)
	}
	if file := f["die-if-exists"]; file != "" {
		if _, err := os.Stat(file); err == nil {
			return fail("%s exists: refusing to start", file)
		}
		if err := os.WriteFile(file, []byte(strings.Join(args, "\n")), 0o644); err != nil {
			return fail("%v", err)
		}
	}
	if f["long-line"] != "" {
		fmt.Println(strings.Repeat("x", 100<<10))
	}
	s := &fakeService{answers: map[string]fakeAnswer{}}
	if f["late"] != "" {
		var err error
		if s.late, err = time.ParseDuration(f["late"]); err != nil {
			return fail("--late: %v", err)
		}
	}
	if u := f["postgres-url"]; u != "" {
		var err error
		if s.pool, err = pgxpool.New(ctx, u); err != nil {
			return fail("%v", err)
		}
		defer s.pool.Close()
	}
	if u := f["redis-url"]; u != "" {
		opt, err := redis.ParseURL(u)
		if err != nil {
			return fail("%v", err)
		}
		s.redis = redis.NewClient(opt)
		defer s.redis.Close()
	}
	ln, err := net.Listen("tcp", cmp.Or(f["listen"], "127.0.0.1:0"))
	if err != nil {
		return fail("%v", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /args", func(w http.ResponseWriter, r *http.Request) { _ = json.NewEncoder(w).Encode(os.Args[1:]) })
	mux.HandleFunc("GET /db", s.db)
	mux.HandleFunc("GET /redis", s.ping)
	mux.HandleFunc("GET /spew", spew)
	mux.HandleFunc("POST "+api.PathCharges, s.charge)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	switch {
	case f["silent"] != "":
	case f["paymentd"] != "":
		fmt.Printf("paymentd: strategy fake on http://%s (replica 0)\n", ln.Addr())
		fmt.Println("paymentd: ready")
	default:
		fmt.Printf("faketarget: listening on http://%s\n", ln.Addr())
	}
	<-ctx.Done()
	fmt.Println("faketarget: interrupted, stopping")
	_ = srv.Close()
	s.pending.Wait()
	return 0
}

// harness is a harness that starts a fake target (marked with args[0])
// and says so, then waits to be killed.
func harness(args []string) int {
	bin, err := os.Executable()
	if err != nil {
		fmt.Println("harness:", err)
		return 1
	}
	p, err := start(context.Background(), "child", bin, []string{fakeTargetArg, "--mark", args[0]})
	if err != nil {
		fmt.Println("harness:", err)
		return 1
	}
	fmt.Println("harness: child serving at", p.url)
	time.Sleep(time.Minute) // killed long before
	return 1
}

// spew writes a line of 100 KiB and 256 KiB of short lines to stdout,
// then answers.
func spew(w http.ResponseWriter, _ *http.Request) {
	fmt.Println(strings.Repeat("y", 100<<10))
	line := strings.Repeat("z", 63) + "\n"
	for range 4096 {
		fmt.Print(line)
	}
	fmt.Println("faketarget: spewed")
	w.WriteHeader(http.StatusNoContent)
}

// fakeService is the fake target's payment service.
type fakeService struct {
	pool    *pgxpool.Pool
	redis   *redis.Client
	late    time.Duration
	pending sync.WaitGroup

	mu      sync.Mutex
	answers map[string]fakeAnswer
}

type fakeAnswer struct {
	fingerprint string
	body        []byte
}

func (s *fakeService) db(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	var n int
	if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM accounts").Scan(&n); err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	fmt.Fprint(w, n)
}

func (s *fakeService) ping(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.redis.Ping(ctx).Err(); err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	fmt.Fprint(w, "PONG")
}

// charge answers a new key at once with the charge it will be, and writes
// the charge's ledger row s.late later.
func (s *fakeService) charge(w http.ResponseWriter, r *http.Request) {
	var req api.ChargeRequest
	key := r.Header.Get(api.HeaderKey)
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Validate() != nil || key == "" {
		send(w, http.StatusBadRequest, api.Error{Code: api.CodeBadRequest, Message: "bad charge request"}, false)
		return
	}
	fp := fmt.Sprintf("%s %d %s", req.Account, req.Amount, req.Currency)
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.answers[key]; ok {
		if a.fingerprint != fp {
			send(w, http.StatusUnprocessableEntity, api.Error{Code: api.CodeMismatch, Message: "another request under this key"}, false)
			return
		}
		send(w, http.StatusCreated, json.RawMessage(a.body), true)
		return
	}
	var seq int64
	if err := s.pool.QueryRow(r.Context(), "SELECT nextval(pg_get_serial_sequence('charges', 'seq'))").Scan(&seq); err != nil {
		send(w, http.StatusServiceUnavailable, api.Error{Code: api.CodeStoreUnavailable, Message: err.Error()}, false)
		return
	}
	body, _ := json.Marshal(api.Charge{ID: ledger.ChargeID(seq), Account: req.Account, Amount: req.Amount, Currency: req.Currency})
	s.answers[key] = fakeAnswer{fingerprint: fp, body: body}
	attempt := r.Header.Get(api.HeaderAttempt)
	s.pending.Go(func() {
		time.Sleep(s.late)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := s.pool.Exec(ctx, `WITH debit AS (UPDATE accounts SET balance = balance - $3 WHERE id = $2)
			INSERT INTO charges (seq, account, amount, currency, idempotency_key, attempt_id) VALUES ($1, $2, $3, $4, $5, NULLIF($6, ''))`,
			seq, req.Account, req.Amount, req.Currency, key, attempt)
		if err != nil {
			fmt.Fprintln(os.Stderr, "faketarget: late charge:", err)
		}
	})
	send(w, http.StatusCreated, json.RawMessage(body), false)
}

func send(w http.ResponseWriter, status int, v any, replayed bool) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	if replayed {
		w.Header().Set(api.HeaderReplayed, "true")
	}
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
