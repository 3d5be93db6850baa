package scenarios

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
)

// The safety rules of a run against a user's service, enforced by
// External.Check for the command line and the go test API alike: load and
// faults go to loopback only unless the user allows otherwise, and a
// target's name (it names directories of a saved run) is safe in a path.

// Loopback reports whether host is localhost or a loopback IP.
func Loopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}

var targetName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// checkName refuses a target name that is not a safe directory name.
func checkName(name string) error {
	if !targetName.MatchString(name) || name == "." || name == ".." {
		return fmt.Errorf("target name %q: want 1 to 64 of a-z, A-Z, 0-9, '.', '_' and '-', starting with a letter or digit (it names directories)", name)
	}
	return nil
}

// checkLoopback refuses a target URL off loopback unless allowed.
func checkLoopback(raw string, allowRemote bool) error {
	u, err := url.Parse(raw)
	if err != nil || allowRemote || Loopback(u.Hostname()) {
		return nil // a parse error is targetHost's to report
	}
	return fmt.Errorf("target url %s: not a loopback address; idemchaos sends faults and load to loopback only unless remote targets are allowed (--allow-remote)", u.Redacted())
}
