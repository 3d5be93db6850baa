package server

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/strategy"
)

// Shaped serves the payment API h serves in another API shape (client
// mode): a charge posted to the shape's path is read as the shape reads
// it, handed to h as the built-in request and answered in the shape's
// form, its headers (the replay header among them) kept. Any other
// request goes to h as it is.
func Shaped(shape api.Shape, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost || req.URL.Path != shape.Path {
			h.ServeHTTP(w, req)
			return
		}
		body, err := io.ReadAll(io.LimitReader(req.Body, maxBody+1))
		var charge api.ChargeRequest
		if err == nil {
			charge, _, err = shape.Decode(req.Header.Get("Content-Type"), body)
		}
		if err != nil {
			bad := strategy.Failure(http.StatusBadRequest, api.CodeBadRequest, "body: "+err.Error())
			writeShaped(w, shape, http.Header{}, bad.Status, bad.Body)
			return
		}
		inner := req.Clone(req.Context())
		inner.URL.Path, inner.Body = api.PathCharges, io.NopCloser(bytes.NewReader(charge.Canonical()))
		inner.ContentLength = int64(len(charge.Canonical()))
		inner.Header.Set("Content-Type", "application/json")
		got := httptest.NewRecorder()
		h.ServeHTTP(got, inner)
		writeShaped(w, shape, got.Header(), got.Code, got.Body.Bytes())
	})
}

// writeShaped writes a built-in answer in the shape's form.
func writeShaped(w http.ResponseWriter, shape api.Shape, h http.Header, status int, body []byte) {
	status, body = shape.Answer(status, body)
	for k, v := range h {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
