//go:build !linux

package load

import "time"

// nap sleeps d (a Go timer: on the millisecond where the process is idle).
func nap(d time.Duration) { time.Sleep(d) }
