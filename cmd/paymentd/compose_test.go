package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// repoRoot is where docker-compose.yml lives, seen from this package.
const repoRoot = "../.."

// composeFile is the part of a compose file the tests look at.
type composeFile struct {
	Services map[string]composeService `json:"services"`
}

// composeService is one service of a compose file.
type composeService struct {
	Image   string `json:"image"`
	Command any    `json:"command"`
	Build   struct {
		Context    string `json:"context"`
		Dockerfile string `json:"dockerfile"`
	} `json:"build"`
	Ports       []string       `json:"ports"`
	Volumes     []string       `json:"volumes"`
	Environment map[string]any `json:"environment"`
	Healthcheck struct {
		Test []string `json:"test"`
	} `json:"healthcheck"`
}

// loadCompose parses a compose file of the repository (YAML, read as
// JSON-shaped data).
func loadCompose(t *testing.T, name string) composeFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, name))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		t.Fatalf("docker-compose.yml is not valid YAML: %v", err)
	}
	js, err := json.Marshal(raw)
	if err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	var f composeFile
	if err := json.Unmarshal(js, &f); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	return f
}

// TestComposeFileShape: the four services, pinned images, ports on loopback
// only, a healthcheck each, and a paymentd command paymentd accepts.
func TestComposeFileShape(t *testing.T) {
	f := loadCompose(t, "docker-compose.yml")
	images := map[string]string{"redis": "redis:7-alpine", "postgres": "postgres:15-alpine",
		"toxiproxy": "ghcr.io/shopify/toxiproxy:2.12.0", "paymentd": "idemchaos/paymentd:local"}
	if len(f.Services) != len(images) {
		t.Errorf("services %v; want %v", keys(f.Services), keys(images))
	}
	for name, image := range images {
		s, ok := f.Services[name]
		if !ok || s.Image != image {
			t.Errorf("service %s: image %q; want %q", name, s.Image, image)
		}
		if len(s.Healthcheck.Test) == 0 {
			t.Errorf("service %s has no healthcheck", name)
		}
		if len(s.Ports) == 0 {
			t.Errorf("service %s publishes no port", name)
		}
		for _, p := range s.Ports {
			if !strings.HasPrefix(p, "127.0.0.1:") {
				t.Errorf("service %s publishes %q beyond loopback", name, p)
			}
		}
	}
	if f.Services["postgres"].Environment["POSTGRES_HOST_AUTH_METHOD"] != "trust" {
		t.Errorf("postgres: POSTGRES_HOST_AUTH_METHOD is not trust")
	}
	checkPaymentdService(t, f)
	checkToxiproxyConfig(t, f)
}

func checkPaymentdService(t *testing.T, f composeFile) {
	t.Helper()
	s := f.Services["paymentd"]
	if _, err := os.Stat(filepath.Join(repoRoot, s.Build.Context, s.Build.Dockerfile)); err != nil || s.Build.Context != "." {
		t.Errorf("paymentd build %+v: %v", s.Build, err)
	}
	c := paymentdCommand(t, s)
	// the stores through the compose Toxiproxy: --postgres-proxy and --redis-proxy faults
	if c.strategy != "pg-tx" || c.listen != "0.0.0.0:8080" || c.redisURL != "redis://toxiproxy:6380/0" ||
		!strings.HasPrefix(c.postgresURL, "postgres://postgres@toxiproxy:5433/") {
		t.Errorf("compose command parsed as %+v", c)
	}
}

// paymentdCommand parses a service's paymentd command (the strategy
// variable at its default) with paymentd's own flags.
func paymentdCommand(t *testing.T, s composeService) config {
	t.Helper()
	args, _ := s.Command.([]any)
	var argv []string
	for _, a := range args {
		argv = append(argv, strings.ReplaceAll(a.(string), "${STRATEGY:-pg-tx}", "pg-tx"))
	}
	if len(argv) < 2 || argv[0] != "paymentd" {
		t.Fatalf("paymentd command %v", s.Command)
	}
	c, err := parseFlags(argv[1:], &bytes.Buffer{})
	if err != nil {
		t.Fatalf("paymentd rejects its compose command %v: %v", argv, err)
	}
	return c
}

// TestDeployComposePayments: in deploy/compose.yaml paymentd stands for a
// user's service: built from its Dockerfile, a command paymentd accepts,
// its Postgres reached through the compose Toxiproxy (whose proxy the
// idemchaos service cuts; cmd/idemchaos checks that side).
func TestDeployComposePayments(t *testing.T) {
	s := loadCompose(t, "deploy/compose.yaml").Services["payments"]
	if _, err := os.Stat(filepath.Join(repoRoot, "deploy", s.Build.Context, s.Build.Dockerfile)); err != nil {
		t.Errorf("payments build %+v: %v", s.Build, err)
	}
	c := paymentdCommand(t, s)
	if c.strategy != "pg-tx" || c.listen != "0.0.0.0:8080" || c.redisURL != "redis://redis:6379/0" ||
		!strings.HasPrefix(c.postgresURL, "postgres://postgres@toxiproxy:5433/") {
		t.Errorf("payments command parsed as %+v", c)
	}
}

// checkToxiproxyConfig: the mounted config is valid JSON and its proxies'
// ports are published.
func checkToxiproxyConfig(t *testing.T, f composeFile) {
	t.Helper()
	s := f.Services["toxiproxy"]
	if len(s.Volumes) != 1 {
		t.Fatalf("toxiproxy volumes %v; want the config file", s.Volumes)
	}
	host, _, _ := strings.Cut(s.Volumes[0], ":")
	b, err := os.ReadFile(filepath.Join(repoRoot, host))
	if err != nil {
		t.Fatal(err)
	}
	var proxies []struct{ Name, Listen, Upstream string }
	if err := json.Unmarshal(b, &proxies); err != nil || len(proxies) == 0 {
		t.Fatalf("%s: %v", host, err)
	}
	published := strings.Join(s.Ports, " ")
	for _, p := range proxies {
		_, port, _ := strings.Cut(p.Listen, ":")
		if !strings.Contains(published, ":"+port+":"+port) {
			t.Errorf("proxy %s listens on %s, not published (%v)", p.Name, p.Listen, s.Ports)
		}
	}
}

// TestComposeConfig validates the file with Docker Compose itself when it is
// installed (the plugin or the standalone docker-compose); skipped otherwise.
func TestComposeConfig(t *testing.T) {
	argv := composeCommand()
	if argv == nil {
		t.Skip("skipping `docker compose config`: neither the compose plugin nor docker-compose is installed")
	}
	cmd := exec.Command(argv[0], append(argv[1:], "-f", "docker-compose.yml", "config", "-q")...)
	cmd.Dir = repoRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%s config: %v\n%s", strings.Join(argv, " "), err, out)
	}
}

// composeCommand finds a Docker Compose: the plugin, else docker-compose v1.
func composeCommand() []string {
	if exec.Command("docker", "compose", "version").Run() == nil {
		return []string{"docker", "compose"}
	}
	if p, err := exec.LookPath("docker-compose"); err == nil {
		return []string{p}
	}
	return nil
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
