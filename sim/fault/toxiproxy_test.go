package fault_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/sim/fault"
)

// TestDropResponseHidesACommittedAnswer: through a link with DropResponse the
// handler runs to completion but the client gets no answer; after Heal the
// same link answers again.
func TestDropResponseHidesACommittedAnswer(t *testing.T) {
	var completed atomic.Int32
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		completed.Add(1)
		_, _ = io.WriteString(w, "committed")
	}))
	defer up.Close()
	tp, err := fault.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close()
	link, err := tp.Link("api", strings.TrimPrefix(up.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(link.Listen, "127.0.0.1:") || strings.HasSuffix(link.Listen, ":0") {
		t.Fatalf("link listens on %q; want a real loopback port", link.Listen)
	}
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	if err := link.Inject(fault.DropResponse, 0); err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Post("http://"+link.Listen, "text/plain", strings.NewReader("x"))
	if err == nil {
		resp.Body.Close()
		t.Fatalf("got status %d through a dropping link; want no answer", resp.StatusCode)
	}
	if completed.Load() != 1 {
		t.Fatalf("handler completed %d times; want 1 (the server did the work)", completed.Load())
	}
	if err := link.Heal(); err != nil {
		t.Fatal(err)
	}
	resp, err = hc.Post("http://"+link.Listen, "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatalf("after heal: %v", err)
	}
	resp.Body.Close()
	if err := link.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := hc.Get("http://" + link.Listen); err == nil {
		t.Fatal("a deleted link still answers")
	}
}

func TestExternalToxiproxyMustAnswer(t *testing.T) {
	tp, err := fault.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close()
	if _, err := fault.External(tp.URL); err != nil {
		t.Fatalf("external on a live API: %v", err)
	}
	if _, err := fault.External("http://127.0.0.1:1"); err == nil {
		t.Fatal("external on a dead address: no error")
	}
}

func TestUnknownToxic(t *testing.T) {
	tp, err := fault.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close()
	link, err := tp.Link("x", "127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	if err := link.Inject("nope", 0); err == nil {
		t.Fatal("unknown toxic accepted")
	}
}

// TestCutRefusesAndHealRestores: a cut link refuses connections; a healed
// one serves again on the same address, with its toxics gone.
func TestCutRefusesAndHealRestores(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer up.Close()
	tp, err := fault.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close()
	link, err := tp.Link("store", strings.TrimPrefix(up.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	// The latency is far above a loaded machine's loopback round trip
	// (up to about 100ms seen under go test -race on 2 busy cores), so that
	// a healed link answering in under half of it has lost the toxic.
	const latency = 600 * time.Millisecond
	if err := link.Inject(fault.Latency, latency); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := hc.Get("http://" + link.Listen); err != nil || time.Since(start) < latency {
		t.Fatalf("latency link: err %v after %s; want an answer after at least %s", err, time.Since(start), latency)
	}
	if err := link.Cut(); err != nil {
		t.Fatal(err)
	}
	if _, err := hc.Get("http://" + link.Listen); err == nil {
		t.Fatal("a cut link answered")
	}
	if err := link.Heal(); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	if _, err := hc.Get("http://" + link.Listen); err != nil || time.Since(start) > latency/2 {
		t.Fatalf("healed link: err %v after %s; want a prompt answer", err, time.Since(start))
	}
}
