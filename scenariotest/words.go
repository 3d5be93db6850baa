package scenariotest

import (
	"strings"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/targets/failpoint/remote"
)

// words turns the command line's flags, which the shared reasons and
// assumptions name, into the Target fields a test sets: a go test user
// reads "set Target.TopUp", never "give --topup-path". Longer flags come
// first, so that a flag is never taken for the start of another.
var words = strings.NewReplacer(
	"give --failpoints, for a service that speaks the failpoint protocol (docs/failpoints.md)",
	"set Target.Failpoints, with a handler that calls scenariotest.At at its points (docs/failpoints.md)",
	"give --failpoints (docs/failpoints.md) or run the service with a slower charge",
	"run the service with a slower charge, or set Target.Failpoints with a handler that calls scenariotest.At at its points (docs/failpoints.md)",
	"--failpoints: the service never called the control URL of the "+remote.Header+" header",
	"Target.Failpoints: the target never called a point (scenariotest.At, or the control URL of the "+remote.Header+" header)",
	"give --topup-path (and --topup-body)", "set Target.TopUp (its Path and Body)",
	"--toxiproxy-url and --postgres-proxy NAME", "Target.Toxiproxy and Target.PostgresProxy",
	"--toxiproxy-url and --redis-proxy NAME", "Target.Toxiproxy and Target.RedisProxy",
	"--toxiproxy-url and --dynamodb-proxy NAME", "Target.Toxiproxy and Target.DynamoDBProxy",
	"--toxiproxy-url", "Target.Toxiproxy",
	"--postgres-proxy", "Target.PostgresProxy",
	"--redis-proxy", "Target.RedisProxy",
	"--dynamodb-proxy", "Target.DynamoDBProxy",
	"declared with --claim-timeout", "declared in Target.ClaimTimeout",
	"declared with --key-ttl", "declared in Target.KeyTTL",
	"raise --settle", "raise Target.ClaimTimeout",
	"--success-status", "Target.Shape.Success",
	"--accounts", "Target.Accounts",
	"--body", "Target.Shape.Body",
	"--path", "Target.Shape.Path",
	"--allow-remote", "Target.AllowRemote",
	"--failpoints", "Target.Failpoints",
)

// inOwnWords puts a result's reasons in the test's words.
func inOwnWords(res scenarios.Result) scenarios.Result {
	for i, a := range res.Assumptions {
		res.Assumptions[i] = words.Replace(a)
	}
	for i, n := range res.Adapted {
		res.Adapted[i] = words.Replace(n)
	}
	return res
}
