//go:build ignore

// busyloop keeps -n CPUs busy for at most -for, for scripts/matrix-stress
// where stress-ng is not installed: go build -o busyloop scripts/busyloop.go.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"
)

func main() {
	n := flag.Int("n", runtime.NumCPU(), "busy loops (1 to 64)")
	d := flag.Duration("for", 10*time.Minute, "stop after this long (at most 1h)")
	flag.Parse()
	if *n < 1 || *n > 64 || *d <= 0 || *d > time.Hour {
		fmt.Fprintln(os.Stderr, "busyloop: want -n 1 to 64 and -for more than 0 and at most 1h")
		os.Exit(2)
	}
	runtime.GOMAXPROCS(*n)
	deadline := time.Now().Add(*d)
	for range *n - 1 {
		go spin(deadline)
	}
	spin(deadline)
}

// spin burns one CPU until the deadline, looking at the clock now and then.
func spin(deadline time.Time) {
	x := uint64(1)
	for time.Now().Before(deadline) {
		for range 1 << 20 {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	_ = x
}
