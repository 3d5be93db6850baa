package scenarios

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"
	"text/template"

	"github.com/idemchaos/idemchaos/sim/workload"
)

// TopUp is how the harness pays money into an account of a user's
// service between a declined charge and its retries (business-refusal):
// a POST of Body to Path, appended to the service's URL as the charge
// path is, which the service answers 2xx once the account is credited.
// Path and Body are text/templates over .Account, .Amount (minor units)
// and .Currency; in Path, .Account is path-escaped.
type TopUp struct {
	Path string `json:"path"`
	Body string `json:"body"`
	// Amount is what the declined charge asks and the top-up pays in: more
	// than the account holds (0: the plan's, just over 10,000.00).
	Amount int64 `json:"amount,omitempty"`
}

// DefaultTopUpBody is the top-up body when none is given: the built-in
// API's (paymentd's).
const DefaultTopUpBody = `{"amount":{{.Amount}}}`

// maxTopUpAmount bounds a top-up.
const maxTopUpAmount = 1_000_000_000_000_000

// TopUpFields are what the top-up templates may use.
type TopUpFields struct {
	Account  string
	Amount   int64
	Currency string
}

// Check reports the first problem with t, or nil: a path that does not
// start with /, a template that does not parse or render, an amount out
// of bounds.
func (t TopUp) Check() error {
	if !strings.HasPrefix(t.Path, "/") {
		return fmt.Errorf("top-up path %q must start with /", clip(t.Path))
	}
	if t.Amount < 0 || t.Amount > maxTopUpAmount {
		return fmt.Errorf("top-up amount %d: want 1 to %d minor units (or 0: the plan's)", t.Amount, int64(maxTopUpAmount))
	}
	_, _, err := t.Render(TopUpFields{Account: "acct-1", Amount: 1, Currency: "EUR"})
	return err
}

// Render is the path and body of the top-up of f.
func (t TopUp) Render(f TopUpFields) (path string, body []byte, err error) {
	escaped := f
	escaped.Account = url.PathEscape(f.Account)
	p, err := renderTemplate("top-up path", t.Path, escaped)
	if err != nil {
		return "", nil, err
	}
	text := t.Body
	if text == "" {
		text = DefaultTopUpBody
	}
	b, err := renderTemplate("top-up body", text, f)
	return string(p), b, err
}

func renderTemplate(name, text string, f TopUpFields) ([]byte, error) {
	tmpl, err := template.New(name).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("%s template: %s", name, oneLine(err))
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, f); err != nil {
		return nil, fmt.Errorf("%s template: %s", name, oneLine(err))
	}
	return b.Bytes(), nil
}

func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", " ") }

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// checkTopUp checks the top-up the service declared, if any.
func (t External) checkTopUp() error {
	if t.TopUp == nil {
		return nil
	}
	return t.TopUp.Check()
}

// topUpHint is why a scenario that funds accounts is skipped against a
// service that declared no top-up.
const topUpHint = "needs a way to fund an account between the declined charge and its retries: give --topup-path " +
	"(and --topup-body), a request your service answers 2xx by crediting the account"

// fundsAccounts reports whether scenario sc pays money into accounts.
func fundsAccounts(sc Scenario) bool {
	return len(sc.Plan(workload.Seeded(0, "needs/"+sc.Name), Params{Replicas: 1}).TopUps) > 0
}

// adaptTopUps follows what adapt did to the plan's ops (adapted, from
// plan) with its top-ups: the service's account names, and the amount
// the service declared for the declined charges and their top-ups, on the
// ops that charge a top-up's amount on its account.
func (t External) adaptTopUps(plan, adapted workload.Plan) workload.Plan {
	if len(plan.TopUps) == 0 {
		return adapted
	}
	names := map[string]string{}
	for i, op := range plan.Ops {
		names[op.Account] = adapted.Ops[i].Account
	}
	name := func(a string) string {
		if n, ok := names[a]; ok {
			return n
		}
		return a
	}
	amount := func(a int64) int64 {
		if t.TopUp != nil && t.TopUp.Amount > 0 {
			return t.TopUp.Amount
		}
		return a
	}
	funded := map[[2]string]bool{}
	adapted.TopUps = make([]workload.TopUp, len(plan.TopUps))
	for i, top := range plan.TopUps {
		funded[[2]string{top.Account, fmt.Sprint(top.Amount)}] = true
		top.Account, top.Amount = name(top.Account), amount(top.Amount)
		adapted.TopUps[i] = top
	}
	for i, op := range plan.Ops {
		if funded[[2]string{op.Account, fmt.Sprint(op.Amount)}] {
			adapted.Ops[i].Amount = amount(op.Amount)
		}
	}
	return adapted
}
