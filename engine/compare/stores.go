package compare

import (
	"maps"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/redis/go-redis/v9"

	"github.com/idemchaos/idemchaos/targets/provision"
)

// listener finds the process listening on a loopback TCP port (from
// /proc/net/tcp and tcp6, and the processes' open sockets): a store given
// by URL that runs on this machine has its CPU time measured too. ok is
// false when no process that can be seen listens there.
func listener(port int) (pid int, ok bool) {
	inodes := map[string]bool{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "0A" { // 0A: LISTEN
				continue
			}
			i := strings.LastIndexByte(f[1], ':')
			if p, err := strconv.ParseInt(f[1][i+1:], 16, 32); err == nil && int(p) == port {
				inodes["socket:["+f[9]+"]"] = true
			}
		}
	}
	if len(inodes) == 0 {
		return 0, false
	}
	fds, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	for _, fd := range fds {
		if target, err := os.Readlink(fd); err == nil && inodes[target] {
			pid, err := strconv.Atoi(strings.Split(fd, "/")[2])
			return pid, err == nil
		}
	}
	return 0, false
}

// groups are the stores' leader processes: those idemchaos started, and
// those given by a loopback URL whose listening process can be seen.
func (s Stores) groups() map[string]int {
	out := maps.Clone(s.Groups)
	if out == nil {
		out = map[string]int{}
	}
	addrs := map[string]string{}
	if c, err := pgconn.ParseConfig(s.BenchDSN); err == nil {
		addrs[PartPostgres] = net.JoinHostPort(c.Host, strconv.Itoa(int(c.Port)))
	}
	if o, err := redis.ParseURL(s.RedisURL); err == nil {
		addrs[PartRedis] = o.Addr
	}
	if s.MySQLURL != "" {
		if addr, err := mysqlAddr(s.MySQLURL); err == nil {
			addrs[PartMySQL] = addr
		}
	}
	for part, addr := range addrs {
		if _, known := out[part]; known {
			continue
		}
		host, port, err := net.SplitHostPort(addr)
		n, perr := strconv.Atoi(port)
		if err != nil || perr != nil || !loopback(host) {
			continue
		}
		if pid, ok := listener(n); ok {
			out[part] = pid
		}
	}
	return out
}

// mysqlAddr is the host:port of a mysql:// URL.
func mysqlAddr(url string) (string, error) {
	dsn, err := provision.MySQLDSN(url)
	if err != nil {
		return "", err
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return "", err
	}
	return cfg.Addr, nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
