package fault

import (
	"time"

	"github.com/Shopify/toxiproxy/v2/toxics"
)

// loseRepliesType is LoseReplies's own toxic, registered with every
// Toxiproxy embedded in this process; an external Toxiproxy lacks it and
// gets Toxiproxy's timeout toxic instead.
const loseRepliesType = "idemchaos-lose-replies"

// loseRepliesIdle is how long loseReplies keeps a connection on which no
// reply came: a loaded client may send its COMMIT late, and a request
// that sends nothing more ends and heals the link before it.
const loseRepliesIdle = 5 * time.Second

func init() { toxics.Register(loseRepliesType, new(loseReplies)) }

// loseReplies drops everything the store sends back, and closes the
// connection After milliseconds after the first reply it dropped (Idle
// after it began when none comes). Toxiproxy's timeout toxic closes after
// its timeout whether or not a reply came: a COMMIT sent later than that
// never reached the store, and a fault meant to lose a commit's answer
// cut the transaction instead.
type loseReplies struct {
	After int64 `json:"after"`
	Idle  int64 `json:"idle"`
}

func (t *loseReplies) Pipe(stub *toxics.ToxicStub) {
	timer := time.NewTimer(time.Duration(t.Idle) * time.Millisecond)
	defer timer.Stop()
	lost := false
	for {
		select {
		case <-timer.C:
			stub.Close()
			return
		case <-stub.Interrupt:
			return
		case c := <-stub.Input:
			if c == nil {
				stub.Close()
				return
			}
			if !lost { // dropped on the ground, the first starts the close
				lost = true
				timer.Reset(time.Duration(t.After) * time.Millisecond)
			}
		}
	}
}

// Cleanup closes the connection when the toxic is removed, as the
// timeout toxic does: its replies are lost already.
func (t *loseReplies) Cleanup(stub *toxics.ToxicStub) { stub.Close() }
