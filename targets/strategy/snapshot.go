package strategy

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemchaos/idemchaos/targets/api"
)

// StoredRecord is one idempotency record as a Redis strategy left it.
type StoredRecord struct {
	Key         string // the idempotency key, without the run's prefix
	Fingerprint string
	Done        bool          // false: an in-flight claim
	Status      int           // the stored response's status, when done
	ChargeID    string        // the charge the stored response names
	TTL         time.Duration // remaining time to live; -1: none
}

// RedisRecords reads every idempotency record a run left in Redis under
// prefix: the Redis half of the ground truth for two-store strategies.
func RedisRecords(ctx context.Context, rdb *redis.Client, prefix string) ([]StoredRecord, error) {
	d := Deps{Prefix: prefix}
	var out []StoredRecord
	iter := rdb.Scan(ctx, 0, d.redisKey("*"), 1000).Iterator()
	for iter.Next(ctx) {
		rec, err := readRecord(ctx, rdb, iter.Val(), d.redisKey(""))
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	if err := iter.Err(); err != nil {
		return nil, fmt.Errorf("scan redis: %w", err)
	}
	return out, nil
}

func readRecord(ctx context.Context, rdb *redis.Client, full, keyPrefix string) (StoredRecord, error) {
	out := StoredRecord{Key: strings.TrimPrefix(full, keyPrefix)}
	v, err := rdb.Get(ctx, full).Result()
	if err == redis.Nil {
		return out, nil // expired between SCAN and GET
	}
	if err != nil {
		return out, fmt.Errorf("read %s: %w", full, err)
	}
	var rec record
	if err := json.Unmarshal([]byte(v), &rec); err != nil {
		return out, fmt.Errorf("record %s: %w", full, err)
	}
	out.Fingerprint, out.Done = rec.Fingerprint, rec.Done
	if rec.Response != nil {
		out.Status = rec.Response.Status
		var c api.Charge
		if json.Unmarshal(rec.Response.Body, &c) == nil {
			out.ChargeID = c.ID
		}
	}
	ttl, err := rdb.PTTL(ctx, full).Result()
	if err != nil {
		return out, fmt.Errorf("ttl %s: %w", full, err)
	}
	out.TTL = ttl
	if ttl < 0 {
		out.TTL = time.Duration(-1)
	}
	return out, nil
}
