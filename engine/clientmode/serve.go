package clientmode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/front"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
	"github.com/idemchaos/idemchaos/targets/ledger"
	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/server"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// served is the payment API idemchaos serves a client under test: its
// stores, the replica with the front in front of it, and the operations
// file the client reads.
type served struct {
	services *provision.Services // the caller's
	pool     *pgxpool.Pool
	replica  *engine.Replica
	front    *front.Front
	dsn      string // the run's database, dropped by close
	dir      string
	told     chan string   // outcome lines POSTed to ToldPath (Config.Serve)
	toldDone chan struct{} // closed once the run stops reading them
}

// serve makes the run a database, opens the plan's accounts there and
// starts the reference strategy behind the plan's front.
func serve(ctx context.Context, cfg Config, plan workload.ClientPlan, profile api.Profile) (s *served, err error) {
	s = &served{}
	defer func() {
		if err != nil {
			err = errors.Join(err, s.close())
		}
	}()
	s.services = cfg.Services
	if s.dsn, err = s.services.CreateDatabase(ctx, "idemchaos"); err != nil {
		return s, err
	}
	if err = s.openLedger(ctx, s.dsn, plan); err != nil {
		return s, err
	}
	if s.dir, err = os.MkdirTemp(cfg.TempDir, "idemchaos-client-"); err != nil {
		return s, err
	}
	if err = writeOps(filepath.Join(s.dir, "ops.json"), plan); err != nil {
		return s, err
	}
	return s, s.start(ctx, cfg, plan, profile, s.dsn)
}

func (s *served) openLedger(ctx context.Context, dsn string, plan workload.ClientPlan) error {
	var err error
	if s.pool, err = pgxpool.New(ctx, dsn); err != nil {
		return err
	}
	if err := ledger.Migrate(ctx, s.pool); err != nil {
		return err
	}
	accounts := make([]workload.Account, len(plan.Ops))
	for i, o := range plan.Ops {
		accounts[i] = workload.Account{ID: o.Account, Currency: o.Currency, Opening: plan.Opening}
	}
	_, err = engine.PrepareLedger(ctx, s.pool, accounts)
	return err
}

// start starts the replica with the front before it.
func (s *served) start(ctx context.Context, cfg Config, plan workload.ClientPlan, profile api.Profile, dsn string) error {
	t0 := time.Now()
	since := func() time.Duration { return time.Since(t0) }
	points := &failpoint.Set{}
	hold := func(id string, d time.Duration) <-chan struct{} {
		held := make(chan struct{})
		var once sync.Once
		points.Arm("hold-"+id, api.BeforeCommit, failpoint.Attempt(id), func(ctx context.Context, _ failpoint.Hit) func() {
			once.Do(func() { close(held) })
			sleep(ctx, d)
			return nil
		})
		return held
	}
	s.told, s.toldDone = make(chan string, 64), make(chan struct{})
	wrap := func(h http.Handler) http.Handler {
		s.front = front.New(front.Config{Plan: plan, Shape: cfg.Shape, Next: server.Shaped(cfg.Shape, h), Hold: hold, Since: since})
		if cfg.Serve == "" {
			return s.front
		}
		mux := http.NewServeMux()
		mux.Handle(ToldPath, toldHandler(s.told, s.toldDone))
		mux.Handle("/", s.front)
		return mux
	}
	var err error
	s.replica, err = engine.StartReplica(ctx, engine.ReplicaSpec{Strategy: design.Reference, Profile: profile, Since: since,
		Failpoints: points, PostgresDSN: dsn, RedisURL: s.services.RedisURL, Wrap: wrap, Listen: cfg.Serve,
		ConnState: func(c net.Conn, state http.ConnState) { s.front.ConnState(c, state) }})
	if err == nil {
		fmt.Fprintf(logOf(cfg), "client: the %s API (%s, profile %s) on http://%s, %d operations\n",
			cfg.Shape.Name, design.Reference, profile.Name, s.replica.Addr, len(plan.Ops))
	}
	return err
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// opLine is one operation as the client reads it from IDEMCHAOS_OPS.
type opLine struct {
	Op       string `json:"op"`
	Account  string `json:"account"`
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

func writeOps(path string, plan workload.ClientPlan) error {
	ops := make([]opLine, len(plan.Ops))
	for i, o := range plan.Ops {
		ops[i] = opLine{Op: o.ID, Account: o.Account, Amount: o.Amount, Currency: o.Currency}
	}
	b, err := json.MarshalIndent(ops, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// env is what the client is told, added to the harness's environment.
func (s *served) env(cfg Config, plan workload.ClientPlan) []string {
	return []string{
		"IDEMCHAOS_URL=http://" + s.replica.Addr,
		"IDEMCHAOS_OPS=" + filepath.Join(s.dir, "ops.json"),
		"IDEMCHAOS_TIMEOUT_MS=" + strconv.FormatInt(plan.Timeout.Milliseconds(), 10),
		"IDEMCHAOS_SHAPE=" + cfg.Shape.Name,
		"IDEMCHAOS_SEED=" + strconv.FormatUint(plan.Seed, 10),
	}
}

// call is what a Go client under test is given, but the operation.
func (s *served) call(cfg Config, plan workload.ClientPlan) Call {
	return Call{URL: "http://" + s.replica.Addr, Timeout: plan.Timeout, Shape: cfg.Shape.Name}
}

// settle waits for the requests the client left running, then fills what
// the server received and the ledger's charges into rec.
func (s *served) settle(ctx context.Context, rec *scenarios.ClientRecord) error {
	wait, cancel := context.WithTimeout(ctx, settle)
	defer cancel()
	if err := s.front.Wait(wait); err != nil {
		return fmt.Errorf("a request was still running %s after the client exited", settle)
	}
	rec.Run.Received, rec.Beyond = s.front.Received()
	truth, err := engine.GroundTruth(ctx, s.pool, nil, false, "")
	rec.Run.Charges = truth.Charges
	return err
}

// close stops what serve started, whatever happened.
func (s *served) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var errs []error
	if s.replica != nil {
		errs = append(errs, s.replica.Close(ctx))
	}
	if s.pool != nil {
		s.pool.Close()
	}
	if s.dsn != "" {
		errs = append(errs, s.services.DropDatabase(ctx, s.dsn))
	}
	if s.dir != "" {
		errs = append(errs, os.RemoveAll(s.dir))
	}
	return errors.Join(errs...)
}
