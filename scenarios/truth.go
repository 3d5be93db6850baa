package scenarios

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

// GroundTruth reads what really happened: for strategies that keep records
// in Redis, those records under prefix (read first: they expire), then the
// ledger. Stamp the history's End after it returns.
func GroundTruth(ctx context.Context, pool *pgxpool.Pool, rdb *redis.Client, name, prefix string) (history.Ledger, error) {
	var records []history.RedisRecord
	if info, _ := strategy.Lookup(name); info.Redis {
		var err error
		if records, err = strategy.RedisRecords(ctx, rdb, prefix); err != nil {
			return history.Ledger{}, err
		}
	}
	l, err := ledger.Snapshot(ctx, pool)
	l.Redis = records
	return l, err
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
