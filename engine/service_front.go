package engine

import (
	"errors"
	"fmt"

	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// front is the client side of an external target: per URL, a clean proxy and
// one that drops every response.
type front struct {
	links map[string]*fault.Link
	paths []string
}

func (r *Service) frontLinks() (*front, error) {
	f := &front{links: map[string]*fault.Link{}}
	for i := range r.target.URLs {
		host, prefix, err := r.target.Endpoint(i)
		if err != nil {
			return nil, err
		}
		f.paths = append(f.paths, prefix)
		for _, toxic := range []string{"", workload.DropResponse} {
			r.linkSeq++
			l, err := r.toxi.Link(fmt.Sprintf("ext-%s-%d-r%d-%s", r.runID, r.linkSeq, i, linkName(toxic)), host)
			if err == nil && toxic != "" {
				err = l.Inject(fault.Toxic(toxic), 0)
			}
			if l != nil {
				f.links[routeKey(i, toxic)] = l
			}
			if err != nil {
				f.close()
				return nil, err
			}
		}
	}
	return f, nil
}

func (f *front) route(replica int, toxic string) (string, error) {
	l, ok := f.links[routeKey(replica, toxic)]
	if !ok {
		return "", fmt.Errorf("no route to target %d with fault %q", replica, toxic)
	}
	return "http://" + l.Listen + f.paths[replica], nil
}

// close deletes the proxies; a second call does nothing.
func (f *front) close() error {
	var errs []error
	for k, l := range f.links {
		errs = append(errs, l.Close())
		delete(f.links, k)
	}
	return errors.Join(errs...)
}
