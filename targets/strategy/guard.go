package strategy

import (
	"context"
	"errors"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

func init() { bind(design.RedisPgGuard, func(d Deps) Strategy { return redisPgGuard{d} }) }

// redisPgGuard uses Redis only for the fast path (a concurrent duplicate gets
// 409 at once) and keeps the truth in Postgres: the key row is written in the
// charge's own transaction, so an expired claim or a lost Redis write can
// never charge twice. A Redis outage degrades to Postgres alone.
type redisPgGuard struct{ deps Deps }

func (s redisPgGuard) Handle(ctx context.Context, r Request) Response {
	if r.Key == "" {
		return noKey(ctx, s.deps, r)
	}
	claim := encodeRecord(record{Fingerprint: r.Fingerprint})
	start := time.Now()
	won, err := s.deps.Redis.SetNX(ctx, s.deps.redisKey(r.Key), claim, s.deps.ClaimTTL).Result()
	claimed(ctx, start, false)
	if err == nil && !won {
		return existing(ctx, s.deps, r)
	}
	s.deps.at(ctx, api.AfterClaim, r)
	resp, err := inTx(ctx, s.deps, r, func(tx *txn) (Response, error) {
		return lockAndCharge(ctx, s.deps, tx, r, lockRules{fingerprint: true})
	})
	if errors.Is(err, errBusy) { // the Redis claim had expired: the first request still works
		s.deps.Redis.Del(ctx, s.deps.redisKey(r.Key))
		return inFlight(s.deps.Profile)
	}
	if err != nil {
		s.deps.Redis.Del(ctx, s.deps.redisKey(r.Key)) // best effort: Postgres is the truth
		return unavailable(err)
	}
	if !s.deps.Profile.IsMismatch(resp.Status) { // never cache the refusal of another payload
		_ = storeDone(ctx, s.deps, r, resp) // a cache: losing it costs a 409, never a charge
	}
	return resp
}
