package client_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// BenchmarkSend measures one charge request of the client against a
// trivial server in a child process, per connection and kept alive, beside
// net/http's client sending the same request bare (no attempt record): the
// cpu-us/op figure is this process's user+sys time per request, the
// client's alone.
func BenchmarkSend(b *testing.B) {
	srv := startServer(b)
	for _, reuse := range []bool{false, true} {
		name := "per-connection"
		if reuse {
			name = "keep-alive"
		}
		b.Run("idemchaos/"+name, func(b *testing.B) {
			cl := client.New(client.Config{Routes: routesTo(srv), Reuse: reuse, Policy: fastPolicy()})
			defer cl.Close()
			var n atomic.Int64
			perRequest(b, func() {
				i := int(n.Add(1))
				op := workload.Op{ID: i, Key: "k", Account: "a", Amount: 100, Currency: "EUR", Group: -1, After: -1, MaxTries: 1}
				if as := cl.Run(context.Background(), workload.Plan{Ops: []workload.Op{op}}); as[0].Status != http.StatusCreated {
					b.Fatalf("got %+v", as[0])
				}
			})
		})
		b.Run("net-http/"+name, func(b *testing.B) {
			hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: !reuse, MaxIdleConnsPerHost: 256}}
			defer hc.CloseIdleConnections()
			perRequest(b, func() {
				req, _ := http.NewRequest(http.MethodPost, srv+api.PathCharges, bytes.NewReader([]byte(`{"account":"a","amount":100,"currency":"EUR"}`)))
				req.Header.Set(api.HeaderKey, "k")
				resp, err := hc.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.ReadAll(resp.Body)
				resp.Body.Close()
			})
		})
	}
}

// startServer runs the trivial server in a child process (this test
// binary, told so by its environment), so the CPU this process spends is
// the client's alone.
func startServer(b *testing.B) string {
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeForBench$")
	cmd.Env = append(os.Environ(), "IDEMCHAOS_BENCH_SERVER=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	return strings.TrimSpace(line)
}

// TestServeForBench is BenchmarkSend's server when run as its child; alone
// it checks that the server answers.
func TestServeForBench(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"id":"ch_1","account":"a","amount":100,"currency":"EUR","balance":0}`))
	})
	srv := httptest.NewServer(h)
	defer srv.Close()
	if os.Getenv("IDEMCHAOS_BENCH_SERVER") == "1" {
		fmt.Println(srv.URL)
		select {}
	}
	cl := client.New(client.Config{Routes: routesTo(srv.URL), Policy: fastPolicy()})
	if as := cl.Run(context.Background(), oneOp(1)); as[0].Status != http.StatusCreated || as[0].ChargeID != "ch_1" {
		t.Fatalf("got %+v", as[0])
	}
}

// perRequest runs send from 8 goroutines per CPU (16 senders on 2 CPUs, as
// bench --compare) and reports the process's CPU time per request.
func perRequest(b *testing.B, send func()) {
	b.SetParallelism(8)
	before := cpuTime()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			send()
		}
	})
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-before).Microseconds())/float64(b.N), "cpu-us/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
