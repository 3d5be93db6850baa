package front

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"

	"github.com/idemchaos/idemchaos/targets/api"
)

// reset closes the client's connection with a TCP reset and no answer, as
// a crashed process or a load balancer that gave up does. A writer that
// cannot be hijacked (HTTP/2) gets its stream aborted instead.
func reset(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}

// relay writes a kept answer to the client and returns its status.
func relay(w http.ResponseWriter, got *httptest.ResponseRecorder) int {
	for k, v := range got.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(got.Code)
	_, _ = w.Write(got.Body.Bytes())
	return got.Code
}

// chargeOf is the charge id of a 2xx answer ("": none); both shapes put
// it at the top of the body.
func chargeOf(got *httptest.ResponseRecorder) string {
	if got.Code/100 != 2 {
		return ""
	}
	var c struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(got.Body.Bytes(), &c)
	return c.ID
}

// jsonError is the built-in error body.
func jsonError(code, msg string) ([]byte, error) {
	return json.Marshal(api.Error{Code: code, Message: msg})
}
