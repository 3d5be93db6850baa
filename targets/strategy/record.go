package strategy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// record is the value a Redis strategy keeps under a key.
type record struct {
	Fingerprint string    `json:"fp"`
	Done        bool      `json:"done"`
	Response    *Response `json:"response,omitempty"`
}

func (d Deps) redisKey(key string) string { return d.Prefix + "idem:" + key }

func encodeRecord(r record) string {
	b, _ := json.Marshal(r) // plain struct
	return string(b)
}

// loadRecord reads the record of key; found=false if absent.
func loadRecord(ctx context.Context, d Deps, key string) (rec record, found bool, err error) {
	v, err := d.Redis.Get(ctx, d.redisKey(key)).Result()
	if errors.Is(err, redis.Nil) {
		return rec, false, nil
	}
	if err != nil {
		return rec, false, fmt.Errorf("redis get: %w", err)
	}
	if err := json.Unmarshal([]byte(v), &rec); err != nil {
		return rec, false, fmt.Errorf("redis record of %s: %w", key, err)
	}
	return rec, true, nil
}

// answerExisting turns a found record into the answer for r.
func answerExisting(d Deps, rec record, r Request) Response {
	switch {
	case rec.Fingerprint != r.Fingerprint:
		return mismatch(d.Profile)
	case !rec.Done || rec.Response == nil:
		return inFlight(d.Profile)
	}
	return replay(*rec.Response)
}

// storeDone writes the completed record of r.
func storeDone(ctx context.Context, d Deps, r Request, resp Response) error {
	rec := record{Fingerprint: r.Fingerprint, Done: true, Response: &resp}
	return d.Redis.Set(ctx, d.redisKey(r.Key), encodeRecord(rec), d.KeyTTL).Err()
}
