package strategy

import (
	"context"
	"fmt"
)

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
	resp := runCharge(ctx, s.deps, r)
	if cacheable(resp) {
		_ = storeDone(ctx, s.deps, r, resp) // the charge is done whatever Redis says
	}
	return resp
}

// redisSetNX claims the key atomically with SET NX EX, charges in Postgres,
// stores the response and releases the claim on failure.
type redisSetNX struct{ deps Deps }

func newRedisSetNX(d Deps) Strategy { return redisSetNX{d} }

func (s redisSetNX) Handle(ctx context.Context, r Request) Response {
	if r.Key == "" {
		return noKey(ctx, s.deps, r)
	}
	claim := encodeRecord(record{Fingerprint: r.Fingerprint})
	won, err := s.deps.Redis.SetNX(ctx, s.deps.redisKey(r.Key), claim, s.deps.ClaimTTL).Result()
	if err != nil {
		return unavailable(fmt.Errorf("redis claim: %w", err))
	}
	if !won {
		return s.existing(ctx, r)
	}
	resp := runCharge(ctx, s.deps, r)
	if !cacheable(resp) {
		s.deps.Redis.Del(ctx, s.deps.redisKey(r.Key))
		return resp
	}
	_ = storeDone(ctx, s.deps, r, resp) // lost write: the flaw this strategy shows
	return resp
}

// existing answers a request whose claim lost to another.
func (s redisSetNX) existing(ctx context.Context, r Request) Response {
	rec, found, err := loadRecord(ctx, s.deps, r.Key)
	if err != nil {
		return unavailable(err)
	}
	if !found { // the holder released or expired between our SET NX and GET
		return inFlight(s.deps.Profile)
	}
	return answerExisting(s.deps, rec, r)
}
