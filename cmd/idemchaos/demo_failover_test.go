package main

import (
	"strings"
	"testing"
)

// TestDemoRedisFailoverTellsTheLostClaim: the story follows one key
// through the cut, its claim and response acknowledged by the primary
// alone, the kill, Sentinel's promotion of a replica without its record,
// and the retry charging again; the same words on two runs of the seed.
func TestDemoRedisFailoverTellsTheLostClaim(t *testing.T) {
	t.Parallel()
	args := []string{"demo", "redis-failover", "--seed", "3"}
	first, second := cli(t, args...), cli(t, args...)
	for _, o := range []outcome{first, second} {
		if o.code != exitViolated {
			t.Fatalf("exit %d; want %d\n%s\n%s", o.code, exitViolated, o.stdout, o.stderr)
		}
		text := flat(o.stdout)
		order := []string{"demo: redis-failover with redis-setnx", "the replication link from the primary is cut",
			"client A gets 201 Created (charge #1)", "the Redis primary is killed (SIGKILL) holding key",
			"record, which its replica never got", "Sentinel promotes the replica to primary: the new primary has no record of key",
			"it was free (request B)", "Postgres commits charge #2", "DOUBLE CHARGE"}
		at := 0
		for _, want := range order {
			i := strings.Index(text[at:], want)
			if i < 0 {
				t.Fatalf("no %q (in this order) in:\n%s", want, o.stdout)
			}
			at += i
		}
	}
	if a, b := story(first.stdout), story(second.stdout); a != b {
		t.Errorf("two runs told two stories:\n%s\n----\n%s", a, b)
	}
}
