package provision

import (
	"strings"
	"testing"
)

// TestParseRedisURLForms: the three forms are told apart, go-redis's
// options come through, and bad input is one line without the password.
func TestParseRedisURLForms(t *testing.T) {
	node, err := ParseRedisURL("redis://127.0.0.1:6379/2")
	if err != nil || node.Node == nil || node.Node.DB != 2 || node.Sentinel != nil || node.Cluster != nil || node.Kind() != "redis" {
		t.Fatalf("node: %+v, %v", node, err)
	}
	s, err := ParseRedisURL("redis://127.0.0.1:26379/1?master_name=pay&addr=127.0.0.1:26380&addr=127.0.0.1:26381&dial_timeout=2s")
	if err != nil || s.Sentinel == nil || s.Kind() != "redis sentinel" {
		t.Fatalf("sentinel: %+v, %v", s, err)
	}
	if o := s.Sentinel; o.MasterName != "pay" || len(o.SentinelAddrs) != 3 || o.DB != 1 || o.DialTimeout.String() != "2s" {
		t.Errorf("sentinel options %+v", o)
	}
	c, err := ParseRedisURL("redis+cluster://u:pw@127.0.0.1:7000?addr=127.0.0.1:7001")
	if err != nil || c.Cluster == nil || c.Kind() != "redis cluster" {
		t.Fatalf("cluster: %+v, %v", c, err)
	}
	if o := c.Cluster; len(o.Addrs) != 2 || o.Username != "u" || o.Password != "pw" || o.TLSConfig != nil {
		t.Errorf("cluster options %+v", o)
	}
	if tls, err := ParseRedisURL("rediss+cluster://127.0.0.1:7000"); err != nil || tls.Cluster.TLSConfig == nil {
		t.Errorf("rediss+cluster: %+v, %v", tls, err)
	}
	for raw, want := range map[string]string{
		"redis://:hunter2@127.0.0.1:26379/0?master_name=m&bogus=1": "unexpected option: bogus",
		"redis://:hunter2@127.0.0.1:26379/0?master_name=":          "master_name is empty",
		"redis+cluster://:hunter2@127.0.0.1:7000?addr=nohost":      "unable to parse addr param",
		"http+cluster://127.0.0.1:7000":                            `scheme "http+cluster" not supported`,
	} {
		_, err := ParseRedisURL(raw)
		assertOneLine(t, err)
		if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: %v; want %q, no password", raw, err, want)
		}
	}
}
