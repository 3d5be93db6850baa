package compare

import (
	"fmt"
	"net"
	"os"
	"reflect"
	"testing"
)

// TestStoresFoundByPort: a store given by a loopback URL is the process
// listening on its port; one started here keeps its own leader, and one
// elsewhere has none.
func TestStoresFoundByPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	if pid, ok := listener(port); !ok || pid != os.Getpid() {
		t.Fatalf("listener(%d) = %d, %v; want this process, %d", port, pid, ok, os.Getpid())
	}
	url := fmt.Sprintf("127.0.0.1:%d", port)
	g := Stores{RedisURL: "redis://" + url + "/0", BenchDSN: "postgres://u@" + url + "/db", Groups: map[string]int{PartPostgres: 7}}.groups()
	if !reflect.DeepEqual(g, map[string]int{PartPostgres: 7, PartRedis: os.Getpid()}) {
		t.Errorf("groups = %v", g)
	}
	if g := (Stores{RedisURL: fmt.Sprintf("redis://192.0.2.1:%d/0", port)}).groups(); len(g) != 0 {
		t.Errorf("a store on another host: %v", g)
	}
}
