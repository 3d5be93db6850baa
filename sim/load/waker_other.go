//go:build !linux

package load

import "time"

// waker is a Go timer where there is no timerfd.
type waker struct{}

func newWaker() *waker { return &waker{} }

func (*waker) sleep(d time.Duration) { time.Sleep(d) }

func (*waker) close() error { return nil }
