package narrate

import (
	"fmt"

	"github.com/idemchaos/idemchaos/scenarios"
)

// RedisRetry tells one run of the go-redis lesson step by step, from what
// it observed: on the wire, in Redis, at the caller. Poisoned says the
// caller was told the key it set was taken.
func RedisRetry(r scenarios.RedisRetry) (lines []string, poisoned bool) {
	say := func(format string, args ...any) {
		lines = append(lines, fmt.Sprintf("%d. ", len(lines)+1)+fmt.Sprintf(format, args...))
	}
	say(`the caller sends SET key "caller" NX EX 60, once, through a proxy that holds back Redis's replies`)
	if r.Applied {
		say("Redis applies it: the key holds the caller's token")
	}
	say("fault: the proxy drops the reply and closes the connection")
	switch {
	case r.Sets > 1:
		say("go-redis sees the connection end, opens a new one and sends the SET NX again on its own: "+
			"%d SET commands on the wire for one call", r.Sets)
	default:
		say("go-redis does not send it again: %d SET command on the wire for one call", r.Sets)
	}
	switch {
	case r.Err == "" && !r.Got && r.Sets > 1:
		say("Redis answers the retry nil: the key is already set, by the caller's own first SET")
		say("the caller gets false, nil: to it, another request holds the key")
		poisoned = r.Holder == "the caller"
		if poisoned {
			say("POISONED BY ITSELF: Redis holds the caller's token, and the caller was told the key is taken; " +
				"a claim in Redis (redis-setnx) answers 409 to the very request that claimed the key, and every " +
				"retry gets 409 until the claim expires")
		}
	case r.Err != "":
		say("the caller gets an error (%s), not an answer: the outcome is unknown, so it reads the key "+
			"before it decides", r.Err)
		say("Redis holds %s's token: the caller knows it claimed the key, and goes on", r.Holder)
	default:
		say("the caller gets %v, nil; Redis holds %s's token", r.Got, r.Holder)
	}
	return lines, poisoned
}
