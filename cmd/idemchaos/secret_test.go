package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// secret is the password the tests below give in --postgres-url and
// --redis-url; it must never come out of idemchaos.
const secret = "hunter2zq9"

// TestProvisioningErrorsHideThePassword: an unreachable or malformed store
// URL with a password is an environment error of one line, and neither it
// nor the progress lines before it show the password.
func TestProvisioningErrorsHideThePassword(t *testing.T) {
	redisUp := []string{"IDEMCHAOS_REDIS_URL=" + services.RedisURL}
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		code int
	}{
		{"postgres unreachable", redisUp, []string{"--postgres-url", "postgres://u:" + secret + "@127.0.0.1:1/postgres?sslmode=disable"}, exitEnv},
		{"postgres password parameter", redisUp, []string{"--postgres-url", "postgres://u@127.0.0.1:1/postgres?sslmode=disable&password=" + secret}, exitEnv},
		{"postgres password with a slash", redisUp, []string{"--postgres-url", "postgres://u:a/" + secret + "@127.0.0.1:1/postgres"}, exitEnv},
		{"postgres DSN without a scheme", redisUp, []string{"--postgres-url", "host=127.0.0.1 port=1 password=" + secret}, exitEnv},
		{"redis unreachable", nil, []string{"--redis-url", "redis://:" + secret + "@127.0.0.1:1/0"}, exitEnv},
		{"redis password in the path", nil, []string{"--redis-url", "redis://a/b:" + secret + "@127.0.0.1:1"}, exitEnv},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run", "--strategy", "pg-tx", "--scenario", "missing-key", "--no-docker"}, tc.args...)
			o := cliEnv(t, tc.env, args...)
			if o.code != tc.code {
				t.Errorf("exit %d, want %d; stderr %q", o.code, tc.code, o.stderr)
			}
			if !strings.HasPrefix(lastLine(o.stderr), "idemchaos: ") || strings.Count(o.stderr, "idemchaos: ") != 1 {
				t.Errorf("stderr does not end with one idemchaos: line: %q", o.stderr)
			}
			if strings.Contains(o.stderr+o.stdout, secret) {
				t.Errorf("the password was shown:\n%s%s", o.stdout, o.stderr)
			}
		})
	}
}

// TestRunOutputsHideThePassword: a run on stores whose URLs carry a password
// the servers ignore (trust authentication, no requirepass) succeeds, and no
// log line, JSON document, report or run-directory file shows it.
func TestRunOutputsHideThePassword(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	jsonFile := filepath.Join(t.TempDir(), "results.json")
	env := []string{
		"IDEMCHAOS_REDIS_URL=" + strings.Replace(services.RedisURL, "redis://", "redis://:"+secret+"@", 1),
		"IDEMCHAOS_POSTGRES_URL=" + withParam(services.PostgresURL, "password="+secret),
	}
	o := cliEnv(t, env, "run", "--strategy", "pg-tx", "--scenario", "missing-key", "--out", dir, "--json", jsonFile)
	if o.code != exitPass {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if strings.Contains(o.stdout+o.stderr, secret) {
		t.Errorf("the password was shown:\n%s%s", o.stdout, o.stderr)
	}
	html := cliEnv(t, nil, "report", dir, "--format", "html")
	if html.code != exitPass || strings.Contains(html.stdout, secret) {
		t.Errorf("report: exit %d, password shown: %v", html.code, strings.Contains(html.stdout, secret))
	}
	files := []string{jsonFile}
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, path)
		}
		return err
	})
	if len(files) < 3 {
		t.Fatalf("the run saved only %v", files)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), secret) {
			t.Errorf("%s shows the password", f)
		}
	}
}

// withParam adds a query parameter to a URL.
func withParam(u, param string) string {
	if strings.Contains(u, "?") {
		return u + "&" + param
	}
	return u + "?" + param
}
