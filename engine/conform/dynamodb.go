package conform

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"sync"

	"github.com/idemchaos/idemchaos/conformance"
	"github.com/idemchaos/idemchaos/targets/provision"
)

// dynamoDB is the run's DynamoDB, for the rows that keep their records
// there: the stand-in the catalog names (conformance.Dynalite), installed
// from its lock file and started by the first row that needs it, stopped
// when the run ends.
type dynamoDB struct {
	mu   sync.Mutex
	d    *provision.Dynalite
	err  error
	done bool
}

// get starts dynalite the first time a row asks, and returns it (or why
// it would not start) every time.
func (s *dynamoDB) get(ctx context.Context, b *Builds) (*provision.Dynalite, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return s.d, s.err
	}
	s.done = true
	dir := filepath.Join(b.Source, conformance.Dynalite.Dir)
	if s.err = b.once(conformance.Dynalite.Name, conformance.Dynalite.Dir, func() error { return b.npmCI(ctx, dir) }); s.err != nil {
		return nil, s.err
	}
	s.d, s.err = provision.StartDynalite(ctx, provision.DynaliteConfig{Dir: dir, Log: b.Log})
	return s.d, s.err
}

// close stops dynalite, if a row started it.
func (s *dynamoDB) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = true
	return s.d.Close()
}

// dynamoDBLink gives row r a table of its own on the run's dynalite,
// created as the library's documentation has it (conformance.DynamoDBTable),
// and a proxy in front of dynalite; it returns the target's arguments: the
// endpoint through the proxy, and the table.
func (d *deployment) dynamoDBLink(ctx context.Context, e Env, r Row) ([]string, error) {
	dyn, err := e.dynamo.get(ctx, e.Builds)
	if err != nil {
		return nil, err
	}
	table := "conf-" + r.Name() + "-" + e.runID
	if err := dyn.CreateTable(ctx, provision.Table{Name: table, Key: r.Target.DynamoDB.Key}); err != nil {
		return nil, err
	}
	u, err := url.Parse(dyn.Endpoint)
	if err != nil {
		return nil, err
	}
	if d.dynamo, err = e.Session.Toxi.Link("conf-"+r.Name()+"-dynamodb-"+e.runID, u.Host); err != nil {
		return nil, err
	}
	return []string{"--dynamodb-endpoint", fmt.Sprintf("http://%s", d.dynamo.Listen), "--dynamodb-table", table}, nil
}

// dynamoDBProxy names the row's DynamoDB proxy ("": none).
func (d *deployment) dynamoDBProxy() string {
	if d.dynamo == nil {
		return ""
	}
	return d.dynamo.Name
}
