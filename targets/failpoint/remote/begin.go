package remote

import "context"

// Begin starts the protocol for one request of a service that is not a
// net/http handler (fasthttp, Fiber): header is the value of Header the
// request carries ("" when it has none) and attempt that of
// api.HeaderAttempt. It returns the context At and End read, and end, which
// sends the request's "end" call if it called a point and did not end
// itself: call it when the request's work is over, as Middleware does when
// its handler returns. A request without the header gets ctx back and an
// end that does nothing.
func (c *Client) Begin(ctx context.Context, header, attempt string) (_ context.Context, end func()) {
	if header == "" {
		return ctx, func() {}
	}
	u, err := c.controlURL(header)
	if err != nil {
		c.warn("failpoints: ignoring %s on a request: %v", Header, err)
		return ctx, func() {}
	}
	st := &request{client: c, url: u, attempt: attempt}
	if c.InProcess {
		if srv, replica, ok := localServer(u); ok {
			st.local, st.replica = srv, replica
		}
	}
	ctx = context.WithValue(ctx, stateKey{}, st)
	return ctx, func() { st.end(ctx) }
}
