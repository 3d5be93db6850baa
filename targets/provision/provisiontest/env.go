package provisiontest

import (
	"os"

	"github.com/idemchaos/idemchaos/targets/provision"
)

// FromEnv is the provisioning config of the tests, read from the
// environment. It is the one documented exception to the rule that only
// cmd/ reads the environment: test binaries have no flags of their own to
// carry these settings.
//
//	IDEMCHAOS_REDIS_URL     Config.RedisURL: use this Redis, never start one
//	IDEMCHAOS_POSTGRES_URL  Config.PostgresURL: use this Postgres, never start one
//	IDEMCHAOS_MYSQL_URL     Config.MySQLURL: use this MySQL-family server, never start one
//	DOCKER_HOST             Config.DockerHost: the Docker engine endpoint
//	PG_BINDIR               Config.PGBinDir: where initdb and postgres are, tried first
//	IDEMCHAOS_CLUSTER_CACHE Config.ClusterCache, as the commands read it ("off": none;
//	                        unset: under the user's cache dir)
//
// Unset variables leave their field at its zero value (the default).
func FromEnv() provision.Config {
	return provision.Config{
		RedisURL:     os.Getenv("IDEMCHAOS_REDIS_URL"),
		PostgresURL:  os.Getenv("IDEMCHAOS_POSTGRES_URL"),
		MySQLURL:     os.Getenv("IDEMCHAOS_MYSQL_URL"),
		DockerHost:   os.Getenv("DOCKER_HOST"),
		PGBinDir:     os.Getenv("PG_BINDIR"),
		ClusterCache: clusterCache(),
	}
}

// clusterCache is Config.ClusterCache as the commands resolve it.
func clusterCache() string {
	user, _ := os.UserCacheDir()
	return provision.ClusterCacheDir(os.Getenv("IDEMCHAOS_CLUSTER_CACHE"), user)
}

// Replicated is the config of the tests' replicated Postgres, which is
// always started from local binaries (PG_BINDIR tried first).
func Replicated() provision.ReplicatedConfig {
	return provision.ReplicatedConfig{PGBinDir: os.Getenv("PG_BINDIR"), ClusterCache: clusterCache()}
}

// Binaries is the directory of the commands built once for the whole
// suite, from IDEMCHAOS_TEST_BIN (make test builds ./cmd/... and the e2e
// services there and sets it); empty: each test package builds its own.
func Binaries() string { return os.Getenv("IDEMCHAOS_TEST_BIN") }

// Artifacts is where tests save what a person should look at (the browser
// tests' screenshots), from IDEMCHAOS_ARTIFACTS; empty: a test's temp dir.
func Artifacts() string { return os.Getenv("IDEMCHAOS_ARTIFACTS") }
