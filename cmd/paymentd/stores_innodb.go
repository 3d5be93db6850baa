package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/go-sql-driver/mysql"

	"github.com/idemchaos/idemchaos/targets/ledger"
	innoledger "github.com/idemchaos/idemchaos/targets/ledger/innodb"
	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/server"

	// The InnoDB strategies register themselves when linked: paymentd
	// serves them (--strategy innodb-tx, ...).
	_ "github.com/idemchaos/idemchaos/targets/strategy/innodb"
)

// connectInnoDB opens the InnoDB ledger's pool on s.mysqlURL as the
// strategies expect it (innoledger.Open), sized by --pg-conns, dialing
// within storeTimeout unless the URL sets its own timeout.
func (s *stores) connectInnoDB(c config) error {
	dsn, err := provision.MySQLDSN(s.mysqlURL)
	if err != nil {
		return err
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return fmt.Errorf("mysql URL %s: %w", redactURL(s.mysqlURL), err)
	}
	cfg.Timeout = cmp.Or(cfg.Timeout, storeTimeout)
	s.mysql, err = innoledger.Open(cfg.FormatDSN(), c.pgConns)
	return err
}

// prepareInnoDB is prepare on the InnoDB ledger.
func (s *stores) prepareInnoDB(ctx context.Context, c config) error {
	if err := innoledger.Migrate(ctx, s.mysql); err != nil {
		return err
	}
	if c.reset {
		if err := innoledger.Reset(ctx, s.mysql); err != nil {
			return err
		}
	}
	for _, a := range c.accounts {
		_, err := innoledger.Balance(ctx, s.mysql, a.id)
		if errors.Is(err, ledger.ErrUnknownAccount) {
			err = innoledger.OpenAccount(ctx, s.mysql, a.id, c.currency, a.opening)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// accounts are the ledger's accounts for the API's accounts routes: nil
// (the server reads Pool's) but for a strategy on InnoDB.
func (s *stores) accounts() server.Accounts {
	if s.mysql == nil {
		return nil
	}
	return innoledger.Accounts{DB: s.mysql}
}
