package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
)

// TestStoreFaultsThroughSentinel: given a Sentinel URL (a real
// topology's), the built-in strategies find their Redis through Sentinel
// and the store-fault scenarios cut the link in front of the primary it
// names: redis-setnx is caught by redis-fault-after-commit as declared,
// redis-pg-guard passes it.
func TestStoreFaultsThroughSentinel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tp, err := fault.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close()
	topo, err := provision.StartRedisTopology(ctx, provision.TopologyConfig{Link: func(up string) (string, error) {
		l, err := tp.Link("repl-sentinel-url", up)
		if err != nil {
			return "", err
		}
		return l.Listen, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer topo.Close()
	url := "redis://" + topo.Sentinels[0] + "/0?master_name=" + provision.TopologyMaster + "&addr=" + topo.Sentinels[1]
	r, err := engine.NewBuiltin(ctx, engine.Env{PostgresDSN: provisiontest.Database(t, services), RedisURL: url, Toxiproxy: tp})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, st := range []string{"redis-setnx", "redis-pg-guard"} {
		res, _, err := engine.Run(ctx, r, scenarios.Cell{Strategy: st, Scenario: "redis-fault-after-commit", Seed: 1, Profile: api.IETF}, "")
		if err != nil {
			t.Fatal(err)
		}
		if !res.AsExpected || len(res.Assumptions) > 0 {
			t.Errorf("%s: %s %v %v; declared %v", st, res.Verdict, res.Anomalies, res.Assumptions, res.Expected)
		}
	}
	if _, err := engine.NewBuiltin(ctx, engine.Env{PostgresDSN: provisiontest.Database(t, services),
		RedisURL: "redis+cluster://" + topo.Primary, Toxiproxy: tp}); err == nil {
		t.Error("a Cluster URL was taken for the built-in strategies")
	}
}
