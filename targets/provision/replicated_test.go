package provision

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemchaos/idemchaos/sim/fault"
)

// TestReplicated starts the primary and its standby through a Toxiproxy
// link and checks what the scenarios rely on: the standby streams through
// the link, latency there puts it behind, and a crash of the primary loses
// the acknowledged asynchronous commits and keeps the synchronous ones.
// Close leaves no process and no dir.
func TestReplicated(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tp, err := fault.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close()
	var link *fault.Link
	base := testBase(t)
	r, err := StartReplicated(ctx, ReplicatedConfig{TempDir: base,
		Link: func(up string) (string, error) {
			link, err = tp.Link("replication", up)
			if err != nil {
				return "", err
			}
			return link.Listen, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	primary, standby := connect(ctx, t, r.PrimaryURL), connect(ctx, t, r.StandbyURL)
	mustExec(ctx, t, primary, `CREATE TABLE marks (name text PRIMARY KEY)`)

	t.Run("streams", func(t *testing.T) {
		mustExec(ctx, t, primary, `INSERT INTO marks VALUES ('streamed')`)
		if !seenWithin(ctx, t, standby, "streamed", 5*time.Second) {
			t.Fatal("a row committed on the primary never reached the standby")
		}
	})
	t.Run("lags", func(t *testing.T) {
		if err := link.Inject(fault.Latency, 600*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		mustExec(ctx, t, primary, `INSERT INTO marks VALUES ('late')`)
		if seenWithin(ctx, t, standby, "late", 200*time.Millisecond) {
			t.Fatal("the standby had the row within 200ms through a 600ms link")
		}
		if err := link.Heal(); err != nil {
			t.Fatal(err)
		}
		if !seenWithin(ctx, t, standby, "late", 5*time.Second) {
			t.Fatal("the standby never caught up once the link healed")
		}
	})
	t.Run("crash", func(t *testing.T) {
		asyncInsert(ctx, t, primary, "async")
		mustExec(ctx, t, primary, `INSERT INTO marks VALUES ('sync')`)
		if err := r.HoldWALWriter(); err != nil {
			t.Fatal(err)
		}
		asyncInsert(ctx, t, primary, "async-after")
		if err := r.Crash(ctx); err != nil {
			t.Fatal(err)
		}
		primary.Close(ctx)
		primary = connect(ctx, t, r.PrimaryURL)
		got := names(ctx, t, primary)
		if !got["sync"] || !got["async"] {
			t.Errorf("after the crash the primary has %v; want the synchronous commit and the asynchronous one before it", got)
		}
		if got["async-after"] {
			t.Errorf("after the crash the primary still has the last asynchronous commit: nothing was lost (%v)", got)
		}
		if r.Crashes() != 1 {
			t.Errorf("Crashes() = %d; want 1", r.Crashes())
		}
	})
	primary.Close(ctx)
	standby.Close(ctx)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	left, _ := os.ReadDir(base)
	if len(left) != 0 {
		t.Errorf("Close left %d entries in %s", len(left), base)
	}
	if _, err := pgx.Connect(ctx, r.PrimaryURL); err == nil {
		t.Error("the primary still answers after Close")
	}
}

func connect(ctx context.Context, t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustExec(ctx context.Context, t *testing.T, c *pgx.Conn, sql string) {
	t.Helper()
	if _, err := c.Exec(ctx, sql); err != nil {
		t.Fatal(err)
	}
}

// asyncInsert commits one row with synchronous_commit off in its
// transaction.
func asyncInsert(ctx context.Context, t *testing.T, c *pgx.Conn, name string) {
	t.Helper()
	err := pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO marks VALUES ($1)`, name)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func names(ctx context.Context, t *testing.T, c *pgx.Conn) map[string]bool {
	t.Helper()
	rows, err := c.Query(ctx, `SELECT name FROM marks`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, n := range got {
		out[n] = true
	}
	return out
}

// seenWithin polls the standby for a row for up to d.
func seenWithin(ctx context.Context, t *testing.T, c *pgx.Conn, name string, d time.Duration) bool {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		var n int
		err := c.QueryRow(ctx, `SELECT count(*) FROM marks WHERE name = $1`, name).Scan(&n)
		var pgErr interface{ SQLState() string }
		switch {
		case errors.As(err, &pgErr) && pgErr.SQLState() == "42P01": // the table has not arrived yet
		case err != nil:
			t.Fatal(err)
		case n > 0:
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}
