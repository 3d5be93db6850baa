package provisiontest

import (
	"testing"

	"github.com/idemchaos/idemchaos/targets/provision"
)

func TestFromEnv(t *testing.T) {
	t.Setenv("IDEMCHAOS_REDIS_URL", "redis://127.0.0.1:1/0")
	t.Setenv("IDEMCHAOS_POSTGRES_URL", "postgres://u@127.0.0.1:2/postgres")
	t.Setenv("IDEMCHAOS_MYSQL_URL", "mysql://root@127.0.0.1:4/idemchaos")
	t.Setenv("DOCKER_HOST", "tcp://127.0.0.1:3")
	t.Setenv("PG_BINDIR", "/opt/pg/bin")
	t.Setenv("IDEMCHAOS_CLUSTER_CACHE", "/var/cache/clusters")
	want := provision.Config{
		RedisURL:     "redis://127.0.0.1:1/0",
		PostgresURL:  "postgres://u@127.0.0.1:2/postgres",
		MySQLURL:     "mysql://root@127.0.0.1:4/idemchaos",
		DockerHost:   "tcp://127.0.0.1:3",
		PGBinDir:     "/opt/pg/bin",
		ClusterCache: "/var/cache/clusters",
	}
	if got := FromEnv(); got != want {
		t.Errorf("FromEnv() = %+v\nwant %+v", got, want)
	}
	for _, k := range []string{"IDEMCHAOS_REDIS_URL", "IDEMCHAOS_POSTGRES_URL", "IDEMCHAOS_MYSQL_URL", "DOCKER_HOST", "PG_BINDIR", "XDG_CACHE_HOME"} {
		t.Setenv(k, "")
	}
	t.Setenv("IDEMCHAOS_CLUSTER_CACHE", "off")
	if got := FromEnv(); got != (provision.Config{}) {
		t.Errorf("empty environment, no cluster cache: FromEnv() = %+v; want the zero Config", got)
	}
	t.Setenv("IDEMCHAOS_CLUSTER_CACHE", "")
	t.Setenv("HOME", "/home/u")
	if got := FromEnv(); got.ClusterCache != "/home/u/.cache/idemchaos/clusters" {
		t.Errorf("no IDEMCHAOS_CLUSTER_CACHE: cluster cache %q; want the one under the user's cache dir", got.ClusterCache)
	}
}
