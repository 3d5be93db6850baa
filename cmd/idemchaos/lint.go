package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios/openapi"
	"github.com/idemchaos/idemchaos/targets/api"
)

// cmdLint checks the idempotency contract an OpenAPI description
// documents against a profile: one line per gap and exit 1, or a line
// saying it documents the contract.
func cmdLint(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("lint", flag.ContinueOnError)
	file := fs.String("openapi", "", "the service's OpenAPI 3.0/3.1 description (YAML or JSON)")
	profile := fs.String("profile", "ietf", "contract profile the service promises: "+strings.Join(api.ProfileNames(), ", ")+", or a profile file (examples/profile-custom.yaml)")
	operation := fs.String("operation", "", "the operation to check, by operationId or as 'POST /path' (default: every one that declares an idempotency key header)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *file == "" {
		return usageErrorf("lint: --openapi FILE is required")
	}
	p, err := profileFlag(*profile)
	if err != nil {
		return err
	}
	doc, err := openapi.Load(*file)
	if err != nil {
		return usageErrorf("--%v", err)
	}
	gaps, err := doc.Lint(*operation, p)
	if err != nil {
		return usageErrorf("--openapi %s: %v", *file, err)
	}
	for _, g := range gaps {
		fmt.Fprintln(stdout, g)
	}
	if len(gaps) > 0 {
		return verdictExit(exitViolated)
	}
	fmt.Fprintf(stdout, "%s documents the %s contract\n", *file, p.Name)
	return nil
}
