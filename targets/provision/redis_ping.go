package provision

import (
	"context"
	"fmt"
	"net"
	"regexp"
	"strconv"

	"github.com/redis/go-redis/v9"
)

var infoProcessID = regexp.MustCompile(`(?m)^process_id:(\d+)\r?$`)

// redisPing checks that a TCP connection to opt.Addr opens, then PINGs
// through a one-off client that retries neither commands nor dials.
// When pid is not 0 it also checks that the server is that process: an
// other server may have taken the port between freePort and our bind.
//
// The plain dial comes first because go-redis, on a failed dial, retries
// 5 times 100 ms apart, logs to its global logger, and with a pool of one
// trips a breaker that returns the cached error for up to a second.
func redisPing(ctx context.Context, opt *redis.Options, pid int) error {
	d := net.Dialer{Timeout: opt.DialTimeout}
	conn, err := d.DialContext(ctx, "tcp", opt.Addr)
	if err != nil {
		return err
	}
	conn.Close()
	o := *opt
	o.MaxRetries, o.DialerRetries, o.PoolSize = -1, 1, 1
	c := redis.NewClient(&o)
	defer c.Close()
	if err := c.Ping(ctx).Err(); err != nil || pid == 0 {
		return err
	}
	info, err := c.Info(ctx, "server").Result()
	if err != nil {
		return err
	}
	m := infoProcessID.FindStringSubmatch(info)
	if m == nil || m[1] != strconv.Itoa(pid) {
		return fmt.Errorf("port answered by another redis (process_id %v, want %d)", m, pid)
	}
	return nil
}
