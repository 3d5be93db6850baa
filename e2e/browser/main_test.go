// Package browser renders idemchaos's HTML reports in headless Chromium
// and checks what a person sees at 800, 1400 and 2400 px: the verdict above
// the fold, no horizontal overflow of the page, every scenario column on
// screen or within reach of the matrix's own scroll, the faults drawn in
// the timelines of the fault scenarios, each try's payload written out.
// The reports come from real runs: a matrix of the built-in strategies on
// real Redis and Postgres, and a user's service run through scenariotest.
// Screenshots are saved under $IDEMCHAOS_ARTIFACTS (else the test's temp
// dir) for a person to look at. A missing Chromium is a failure, as a
// missing Redis or Postgres is: scripts/setup installs it.
//
// It holds tests only, in the e2e module, so that chromedp stays out of
// the library's go.mod.
package browser

import (
	"os"
	"os/exec"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"

	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
)

var services *provision.Services

func TestMain(m *testing.M) {
	redis.SetLogger(&logging.VoidLogger{}) // cut store links make go-redis log every failed dial
	os.Exit(provisiontest.Main(m, &services))
}

// browsers are the names Chromium goes by, in the order they are tried.
var browsers = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// chromium finds the browser, or fails the test with how to install it.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range browsers {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	t.Fatalf("the browser tests need Chromium (none of %v on PATH): apt-get install chromium, or run scripts/setup", browsers)
	return ""
}

// artifacts is the directory the screenshots go to.
func artifacts(t *testing.T) string {
	t.Helper()
	dir := provisiontest.Artifacts()
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
