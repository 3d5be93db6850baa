package load

import (
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// waker is one timerfd, read through Go's poller; nil f: none could be
// made. One goroutine sleeps on it at a time (mu); another meanwhile
// sleeps on a Go timer.
type waker struct {
	mu sync.Mutex
	fd int      // f's descriptor, kept: f.Fd() would make it blocking
	f  *os.File // reads park on Go's poller
}

func newWaker() *waker {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return &waker{}
	}
	return &waker{fd: fd, f: os.NewFile(uintptr(fd), "timerfd")} // non-blocking: the poller reads it
}

// sleep returns once d has passed.
func (w *waker) sleep(d time.Duration) {
	if w.f == nil || !w.mu.TryLock() {
		time.Sleep(d)
		return
	}
	defer w.mu.Unlock()
	its := unix.ItimerSpec{Value: unix.NsecToTimespec(d.Nanoseconds())}
	var expirations [8]byte
	if unix.TimerfdSettime(w.fd, 0, &its, nil) != nil {
		time.Sleep(d)
		return
	}
	if _, err := w.f.Read(expirations[:]); err != nil { // closed: the caller sleeps the rest
		time.Sleep(d)
	}
}

func (w *waker) close() error {
	if w.f == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.f.Close()
}
