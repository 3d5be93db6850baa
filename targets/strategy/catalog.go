package strategy

import (
	"errors"
	"fmt"

	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// builders build the designs of the catalog (targets/strategy/design) by
// name: each built-in one binds its builder beside its implementation, and
// Register binds a new one's; a test keeps the catalog and the builders
// equal.
var builders = map[string]Builder{}

// bind gives a built-in design its builder, from the init function of the
// file that implements it.
func bind(info design.Info, build Builder) {
	if _, ok := builders[info.Name]; ok || build == nil {
		panic(fmt.Sprintf("strategy: %s bound twice or without a builder", info.Name))
	}
	builders[info.Name] = build
}

// Builder builds a strategy on its stores.
type Builder func(Deps) Strategy

// Register adds a strategy: its definition to the design catalog and its
// builder here, the one call a new strategy's file makes from its init
// function, as a Toxiproxy toxic registers itself. It panics on a name
// already taken or a nil builder.
func Register(info design.Info, build Builder) {
	if build == nil {
		panic(fmt.Sprintf("strategy: %s registered without a builder", info.Name))
	}
	if _, ok := builders[info.Name]; ok {
		panic(fmt.Sprintf("strategy: %s is already registered", info.Name))
	}
	design.Register(info)
	bind(info, build)
}

// New builds the named strategy on deps: a strategy on InnoDB (Info.MySQL)
// needs deps.MySQL and no Postgres pool, every other one deps.Pool.
func New(name string, deps Deps) (Strategy, error) {
	info, err := design.Lookup(name)
	if err != nil {
		return nil, err
	}
	build, ok := builders[name]
	if !ok {
		return nil, fmt.Errorf("strategy %s has no implementation", name)
	}
	if info.Redis && deps.Redis == nil {
		return nil, fmt.Errorf("strategy %s needs Redis", name)
	}
	switch {
	case info.MySQL && deps.MySQL == nil:
		return nil, fmt.Errorf("strategy %s needs an InnoDB pool (Deps.MySQL)", name)
	case !info.MySQL && deps.Pool == nil:
		return nil, errors.New("strategy needs a Postgres pool")
	}
	return build(deps.withDefaults()), nil
}
