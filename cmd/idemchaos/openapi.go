package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/idemchaos/idemchaos/scenarios/openapi"
	"github.com/idemchaos/idemchaos/sim/client"
)

// specFlags name the service's OpenAPI description and what to read of it.
type specFlags struct {
	file, operation           string
	accountField, amountField string
}

func (s *specFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.file, "openapi", "", "the service's OpenAPI 3.0/3.1 description (YAML or JSON): path, key header, body, success statuses and charge id come from its charge operation; the shape flags still win")
	fs.StringVar(&s.operation, "operation", "", "with --openapi: the operation to charge with, by operationId or as 'POST /path' (default: the one that declares an idempotency key header)")
	fs.StringVar(&s.accountField, "account-field", "", "with --openapi: dotted path of the account field in the request body (default: the property hinted x-idemchaos-field: account, or named account)")
	fs.StringVar(&s.amountField, "amount-field", "", "with --openapi: dotted path of the amount field in the request body (default: the property hinted x-idemchaos-field: amount, or named amount)")
}

// shape fills the request shape from the description, the fields already
// set (by flags) winning, and returns the operation it read (nil without
// --openapi).
func (s specFlags) shape(sh *client.Shape) (*openapi.Operation, error) {
	if s.file == "" {
		if s.operation != "" || s.accountField != "" || s.amountField != "" {
			return nil, usageErrorf("--operation, --account-field and --amount-field read an OpenAPI description: give --openapi too")
		}
		return nil, nil
	}
	op, err := s.pick()
	if err != nil {
		return nil, err
	}
	mapped, err := op.Map(openapi.Want{Shape: *sh, AccountField: s.accountField, AmountField: s.amountField})
	if err != nil {
		return nil, usageErrorf("--openapi %s: %v", s.file, err)
	}
	*sh = mapped
	return &op, nil
}

// pick loads the description and picks the operation.
func (s specFlags) pick() (openapi.Operation, error) {
	doc, err := openapi.Load(s.file)
	if err != nil {
		return openapi.Operation{}, usageErrorf("--%v", err)
	}
	op, err := doc.Pick(s.operation)
	if err != nil {
		return op, usageErrorf("--openapi %s: %v", s.file, err)
	}
	return op, nil
}

// tellShape says which operation the request was read from and how it
// is sent.
func tellShape(w io.Writer, op *openapi.Operation, sh client.Shape) {
	if op == nil {
		return
	}
	fmt.Fprintf(w, "openapi: %s: POST %s, key in %s, success %v, charge id %s, body %s\n",
		op.Name(), sh.Path, sh.KeyHeader, sh.Success, sh.ChargeID, sh.Body)
}

// noteUndocumented says which statuses the service answered that its
// description does not document for the operation.
func noteUndocumented(w io.Writer, op *openapi.Operation, counts map[int]int) {
	if op == nil {
		return
	}
	for _, line := range op.Undocumented(counts) {
		fmt.Fprintln(w, "note: "+line)
	}
}
