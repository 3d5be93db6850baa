package deploy

import (
	"bytes"
	"encoding/json"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

const composeFile = "deploy/compose.yaml"

// composeService is the part of the Compose schema deploy/compose.yaml uses.
type composeService struct {
	Image string `yaml:"image"`
	Build struct {
		Context    string `yaml:"context"`
		Dockerfile string `yaml:"dockerfile"`
		Target     string `yaml:"target"`
	} `yaml:"build"`
	Command     []string          `yaml:"command"`
	Environment map[string]string `yaml:"environment"`
	Volumes     []string          `yaml:"volumes"`
	Ports       []string          `yaml:"ports"`
	DependsOn   map[string]struct {
		Condition string `yaml:"condition"`
	} `yaml:"depends_on"`
	Healthcheck struct {
		Test     []string `yaml:"test"`
		Interval string   `yaml:"interval"`
		Timeout  string   `yaml:"timeout"`
		Retries  int      `yaml:"retries"`
	} `yaml:"healthcheck"`
	StopGracePeriod string   `yaml:"stop_grace_period"`
	Profiles        []string `yaml:"profiles"`
}

// decodeStrict decodes YAML into v, refusing fields v does not model.
func decodeStrict(data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	return dec.Decode(v)
}

// loadCompose decodes deploy/compose.yaml.
func loadCompose(t *testing.T) map[string]composeService {
	t.Helper()
	var f struct {
		Services map[string]composeService `yaml:"services"`
	}
	if err := decodeStrict(readRepoFile(t, composeFile), &f); err != nil {
		t.Fatalf("%s: %v", composeFile, err)
	}
	return f.Services
}

// TestComposeFile: the idemchaos service is the slim image built from the
// repository's Dockerfile; its command, which the CLI accepts, tests the
// payments service by its compose name, reads the ledger straight from
// Postgres and cuts Postgres through the Toxiproxy proxy the service's
// database URL goes through; nothing is published beyond loopback.
func TestComposeFile(t *testing.T) {
	svcs := loadCompose(t)
	ic, ok := svcs["idemchaos"]
	if !ok {
		t.Fatalf("%s: no idemchaos service", composeFile)
	}
	if ic.Image != imageSlim || ic.Build.Target != imageStages[imageSlim] || ic.Build.Dockerfile != "" ||
		filepath.Join(filepath.Dir(composeFile), ic.Build.Context) != "." {
		t.Errorf("idemchaos: image %s from %+v; want %s, stage %s of the repository's Dockerfile", ic.Image, ic.Build, imageSlim, imageStages[imageSlim])
	}
	argv := append(imageEntrypoint(t, ic.Image), ic.Command...)
	if err := cliAccepts(argv, nil); err != nil {
		t.Fatal(err)
	}
	flags, _ := flagValues(argv[2:])
	if _, dep := ic.DependsOn["payments"]; !dep {
		t.Errorf("idemchaos does not wait for payments: depends_on %v", ic.DependsOn)
	}
	_, listen, _ := net.SplitHostPort(flagOf(svcs["payments"].Command, "listen"))
	checkComposeHost(t, svcs, "target-url", flags["target-url"], "payments", listen)
	checkComposeHost(t, svcs, "ledger-url", flags["ledger-url"], "postgres", "5432")
	toxiproxy := commandFlags(svcs["toxiproxy"].Command)
	checkComposeHost(t, svcs, "toxiproxy-url", flags["toxiproxy-url"], "toxiproxy", toxiproxy["port"])
	port := composeProxies(t, svcs["toxiproxy"]).port(flags["postgres-proxy"])
	if port == "" {
		t.Fatalf("--postgres-proxy %q: no such proxy in the toxiproxy service's config", flags["postgres-proxy"])
	}
	checkComposeHost(t, svcs, "payments --postgres-url", flagOf(svcs["payments"].Command, "postgres-url"), "toxiproxy", port)
	for name, s := range svcs {
		for _, p := range s.Ports {
			if !strings.HasPrefix(p, "127.0.0.1:") {
				t.Errorf("service %s publishes %s beyond loopback", name, p)
			}
		}
		if s.Image == "" || !strings.Contains(s.Image, ":") || strings.HasSuffix(s.Image, ":latest") {
			t.Errorf("service %s: image %q is not pinned to a tag", name, s.Image)
		}
	}
}

// checkComposeHost: raw (a URL or host:port) is service's host at port.
func checkComposeHost(t *testing.T, svcs map[string]composeService, what, raw, service, port string) {
	t.Helper()
	host := raw
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		host = u.Host
	}
	h, p, err := net.SplitHostPort(host)
	if _, ok := svcs[h]; err != nil || !ok || h != service || p != port {
		t.Errorf("%s %q; want the compose service %s at port %s", what, raw, service, port)
	}
}

// commandFlags reads -name=value arguments (Toxiproxy's style).
func commandFlags(cmd []string) map[string]string {
	out := map[string]string{}
	for _, a := range cmd {
		if name, v, ok := strings.Cut(strings.TrimLeft(a, "-"), "="); ok {
			out[name] = v
		}
	}
	return out
}

// flagOf is the value of --name in a command.
func flagOf(cmd []string, name string) string {
	i := slices.Index(cmd, "--"+name)
	if i < 0 || i+1 == len(cmd) {
		return ""
	}
	return cmd[i+1]
}

// composeProxies reads the config file mounted into the toxiproxy service
// at its -config path.
func composeProxies(t *testing.T, s composeService) toxiproxyConfig {
	t.Helper()
	config := commandFlags(s.Command)["config"]
	for _, v := range s.Volumes {
		host, inside, _ := strings.Cut(v, ":")
		inside, _, _ = strings.Cut(inside, ":")
		if inside != config {
			continue
		}
		b, err := os.ReadFile(filepath.Join(repoRoot, filepath.Dir(composeFile), host))
		if err != nil {
			t.Fatal(err)
		}
		var cfg toxiproxyConfig
		if err := json.Unmarshal(b, &cfg); err != nil || len(cfg) == 0 {
			t.Fatalf("%s: %v", host, err)
		}
		return cfg
	}
	t.Fatalf("toxiproxy: -config=%s is not a mounted file (volumes %v)", config, s.Volumes)
	return nil
}
