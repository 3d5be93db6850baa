package engine_test

import (
	"context"
	"testing"
)

// TestRedisRetryLessonEveryRun, both directions, on every run: with
// go-redis's default retries the lost reply of an applied SET NX is sent
// again and answered false, nil, while Redis holds the caller's own token;
// with MaxRetries -1 the caller gets the error, one SET on the wire.
func TestRedisRetryLessonEveryRun(t *testing.T) {
	r := newRunner(t)
	for run := 1; run <= 5; run++ {
		def, err := r.RedisRetryLesson(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		if !def.Applied || def.Sets != 2 || def.Dials != 1 || def.Got || def.Err != "" || def.Holder != "the caller" {
			t.Errorf("run %d, default retries: %+v; want the SET sent twice on a new connection, false, nil, the caller's token", run, def)
		}
		none, err := r.RedisRetryLesson(context.Background(), -1)
		if err != nil {
			t.Fatal(err)
		}
		if !none.Applied || none.Sets != 1 || none.Dials != 0 || none.Got || none.Err == "" || none.Holder != "the caller" {
			t.Errorf("run %d, no retries: %+v; want one SET and the error, the caller's token", run, none)
		}
	}
}
