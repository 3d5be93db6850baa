package load

import (
	"syscall"
	"time"
)

// nap sleeps d in a nanosleep of the calling thread, woken by a
// high-resolution timer (within the thread's timer slack, 50 us by
// default).
func nap(d time.Duration) {
	ts := syscall.NsecToTimespec(d.Nanoseconds())
	_ = syscall.Nanosleep(&ts, nil) // EINTR: the caller sleeps the rest
}
