package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/targets/api"
)

// TestInnoDBSQLLinkCut: an InnoDB cell's SQL link runs through Toxiproxy
// to MariaDB, where db-fault-mid-request's cut lands: the injection fires,
// the request it cuts is answered 503 by the MySQL driver's broken
// connection, and
// innodb-tx passes (its probe charges once), its ledger read from InnoDB.
func TestInnoDBSQLLinkCut(t *testing.T) {
	r := newRunner(t)
	res, rec, err := engine.Run(context.Background(), r, scenarios.Cell{Strategy: "innodb-tx", Scenario: "db-fault-mid-request", Seed: 1, Profile: api.IETF}, "")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Obs.Injected == 0 {
		t.Fatal("no injection fired on the SQL link")
	}
	cut := 0
	for _, a := range rec.Obs.History.Attempts {
		if a.Status == 503 && strings.Contains(a.Body, "invalid connection") {
			cut++
		}
	}
	if cut == 0 {
		t.Errorf("no request failed on the cut MySQL link; statuses: %v", statuses(rec))
	}
	if len(rec.Obs.Ledger.Charges) == 0 || len(rec.Obs.Ledger.Accounts) == 0 {
		t.Errorf("the ground truth read nothing from InnoDB: %+v", rec.Obs.Ledger)
	}
	if res.Verdict != scenarios.Pass || !res.AsExpected {
		t.Errorf("innodb-tx under db-fault-mid-request: %s %v %v", res.Verdict, res.Anomalies, res.Assumptions)
	}
}

func statuses(rec scenarios.Record) map[int]int {
	out := map[int]int{}
	for _, a := range rec.Obs.History.Attempts {
		out[a.Status]++
	}
	return out
}
