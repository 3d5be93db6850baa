package strategy

import (
	"context"
	"fmt"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

func init() { bind(design.RedisGetset, newRedisGetSet) }

// redisGetSet checks the key, charges, then sets the response: the classic
// check-then-act race.
type redisGetSet struct{ deps Deps }

func newRedisGetSet(d Deps) Strategy { return redisGetSet{d} }

func (s redisGetSet) Handle(ctx context.Context, r Request) Response {
	if r.Key == "" {
		return noKey(ctx, s.deps, r)
	}
	rec, found, err := loadRecord(ctx, s.deps, r.Key)
	if err != nil {
		return unavailable(err)
	}
	if found {
		return answerExisting(s.deps, rec, r)
	}
	s.deps.at(ctx, api.AfterCheck, r)
	resp := runCharge(ctx, s.deps, r)
	if cacheable(resp) {
		s.deps.at(ctx, api.BeforeStoreResponse, r)
		_ = storeDone(ctx, s.deps, r, resp) // the charge is done whatever Redis says
	}
	return resp
}

// The three designs of a Redis claim: released on error, sticky for the
// key's life, or caching every answer.
func init() {
	bind(design.RedisSetnx, func(d Deps) Strategy { return redisClaim{deps: d, claimTTL: d.ClaimTTL, release: true} })
	bind(design.RedisSticky, func(d Deps) Strategy { return redisClaim{deps: d, claimTTL: d.KeyTTL} })
	bind(design.RedisCacheErrors, func(d Deps) Strategy { return redisClaim{deps: d, claimTTL: d.ClaimTTL, cacheErrors: true} })
}

// redisClaim claims the key atomically with SET NX EX, charges in Postgres and
// stores the response. Its knobs are the ways teams get it wrong:
// redis-setnx releases the claim on error; redis-sticky never does and keeps
// it as long as a key; redis-cache-errors stores 5xx answers too.
type redisClaim struct {
	deps        Deps
	claimTTL    time.Duration
	release     bool // DEL the claim when the work failed
	cacheErrors bool // store every response, 5xx included
}

func (s redisClaim) Handle(ctx context.Context, r Request) Response {
	if r.Key == "" {
		return noKey(ctx, s.deps, r)
	}
	claim := encodeRecord(record{Fingerprint: r.Fingerprint})
	start := time.Now()
	won, err := s.deps.Redis.SetNX(ctx, s.deps.redisKey(r.Key), claim, s.claimTTL).Result()
	claimed(ctx, start, false)
	if err != nil {
		return unavailable(fmt.Errorf("redis claim: %w", err))
	}
	if !won {
		return existing(ctx, s.deps, r)
	}
	s.deps.at(ctx, api.AfterCheck, r)
	s.deps.at(ctx, api.AfterClaim, r)
	resp := runCharge(ctx, s.deps, r)
	switch {
	case cacheable(resp) || s.cacheErrors:
		s.deps.at(ctx, api.BeforeStoreResponse, r)
		_ = storeDone(ctx, s.deps, r, resp) // a lost write here is the two-system flaw
	case s.release:
		s.deps.Redis.Del(ctx, s.deps.redisKey(r.Key))
	}
	return resp
}

// existing answers a request whose claim lost to another.
func existing(ctx context.Context, d Deps, r Request) Response {
	rec, found, err := loadRecord(ctx, d, r.Key)
	if err != nil {
		return unavailable(err)
	}
	if !found { // the holder released or expired between our SET NX and GET
		return inFlight(d.Profile)
	}
	return answerExisting(d, rec, r)
}
