package scenarios

import (
	"time"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/targets/api"
)

// retentionInput gives the checker when the trace saw each attempt find
// its key free (its first arrival at after-check): whether a charge may
// have found an expired record depends on when it looked, which a loaded
// machine may put well after the request reached the server.
func retentionInput(in *check.Input, trace []Event) {
	checked := map[string]time.Duration{}
	for _, e := range trace {
		if _, ok := checked[e.Attempt]; !ok && e.Point == string(api.AfterCheck) {
			checked[e.Attempt] = e.At
		}
	}
	if len(checked) > 0 {
		in.Checked = checked
	}
}
