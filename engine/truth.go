package engine

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/ledger"
	"github.com/idemchaos/idemchaos/targets/strategy"
)

// PrepareLedger empties the ledger, opens accounts and returns how many
// charges the ledger still holds (the "empty at start" self-check).
func PrepareLedger(ctx context.Context, pool *pgxpool.Pool, accounts []workload.Account) (int, error) {
	if err := ledger.Reset(ctx, pool); err != nil {
		return 0, err
	}
	for _, a := range accounts {
		if err := ledger.Open(ctx, pool, a.ID, a.Currency, a.Opening); err != nil {
			return 0, err
		}
	}
	return ledger.CountCharges(ctx, pool)
}

// GroundTruth reads what really happened: for a strategy that keeps records
// in Redis (withRedis), those records under prefix (read first: they
// expire), then the ledger. Stamp the history's End after it returns.
func GroundTruth(ctx context.Context, pool *pgxpool.Pool, rdb *redis.Client, withRedis bool, prefix string) (history.Ledger, error) {
	return groundTruth(ctx, func(ctx context.Context) (ledger.Snapshot, error) { return ledger.Read(ctx, pool) }, rdb, withRedis, prefix)
}

// groundTruth is GroundTruth on the ledger read reads (Postgres's or
// InnoDB's, whose snapshot is in the same terms).
func groundTruth(ctx context.Context, read func(context.Context) (ledger.Snapshot, error), rdb *redis.Client,
	withRedis bool, prefix string) (history.Ledger, error) {
	var l history.Ledger
	if withRedis {
		records, err := strategy.RedisRecords(ctx, rdb, prefix)
		if err != nil {
			return l, err
		}
		l.Redis = redisRecords(records)
	}
	snap, err := read(ctx)
	l.Charges, l.Accounts = chargesOf(snap.Charges), accountsOf(snap.Accounts)
	return l, err
}

// charges are the ledger's rows in the checker's terms.
func chargesOf(rows []ledger.ChargeRow) []history.Charge {
	out := make([]history.Charge, 0, len(rows))
	for _, r := range rows {
		out = append(out, history.Charge{ID: r.ID(), Account: r.Account, Amount: r.Amount, Key: r.Key,
			AttemptID: r.AttemptID, Seq: r.Seq})
	}
	return out
}

func accountsOf(rows []ledger.AccountRow) []history.Account {
	out := make([]history.Account, 0, len(rows))
	for _, r := range rows {
		out = append(out, history.Account{ID: r.ID, Opening: r.Opening, Balance: r.Balance, Credited: r.Credited})
	}
	return out
}

func redisRecords(stored []strategy.StoredRecord) []history.RedisRecord {
	var out []history.RedisRecord
	for _, r := range stored {
		out = append(out, history.RedisRecord{Key: r.Key, Fingerprint: r.Fingerprint, Done: r.Done, Status: r.Status,
			ChargeID: r.ChargeID, TTL: r.TTL})
	}
	return out
}

// DropKeys removes every Redis key under prefix.
func DropKeys(rdb *redis.Client, prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	iter := rdb.Scan(ctx, 0, prefix+"*", 1000).Iterator()
	for iter.Next(ctx) {
		rdb.Del(ctx, iter.Val())
	}
}
