package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint/remote"
	"github.com/idemchaos/idemchaos/targets/ledger"
)

// keyHeader is the middleware's default KeyHeader.
const keyHeader = "X-Idempotency-Key"

// chargeHandler is the business handler the middleware wraps: it runs once
// the middleware has found the key free and holds its lock, so it reports
// after-check and after-claim on entry, then before-commit and
// after-commit around its transaction. A business refusal (402, 404) is
// an answer, stored by the middleware like any other; a store failure is
// returned as an error, which the middleware does not store
// (idempotency.go: "If the request handler returned an error, return it and
// skip idempotency") and Fiber's error handler answers 503.
func chargeHandler(pool *pgxpool.Pool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		var req api.ChargeRequest
		if err := json.Unmarshal(c.Body(), &req); err != nil || req.Validate() != nil {
			return c.Status(http.StatusBadRequest).JSON(api.Error{Code: api.CodeBadRequest, Message: "bad charge request"})
		}
		ctx, key := c.UserContext(), c.Get(keyHeader)
		remote.At(ctx, api.AfterCheck, key)
		remote.At(ctx, api.AfterClaim, key)
		tx, err := pool.Begin(ctx)
		if err != nil {
			return fiber.NewError(http.StatusServiceUnavailable, err.Error())
		}
		defer tx.Rollback(ctx)
		ch, err := ledger.Charge(ctx, tx, ledger.Debit{Request: req, Key: key, AttemptID: c.Get(api.HeaderAttempt)})
		switch {
		case errors.Is(err, ledger.ErrInsufficientFunds):
			return c.Status(http.StatusPaymentRequired).JSON(api.Error{Code: api.CodeInsufficientFunds, Message: "insufficient funds"})
		case errors.Is(err, ledger.ErrUnknownAccount):
			return c.Status(http.StatusNotFound).JSON(api.Error{Code: api.CodeNotFound, Message: "unknown account"})
		case err != nil:
			return fiber.NewError(http.StatusServiceUnavailable, err.Error())
		}
		remote.At(ctx, api.BeforeCommit, key)
		if err := tx.Commit(ctx); err != nil {
			return fiber.NewError(http.StatusServiceUnavailable, err.Error())
		}
		remote.At(ctx, api.AfterCommit, key)
		return c.Status(http.StatusCreated).JSON(ch)
	}
}

// topUpHandler pays money into an account (POST /v1/accounts/:id/top-ups),
// the endpoint business-refusal funds an account with between a declined
// charge and its retries. Its request carries no key, so the middleware
// lets it through ("Don't execute middleware if the idempotency key is
// empty"): 200 and the account, 400 for a bad body, 404 for an unknown
// account, 503 when the ledger failed.
func topUpHandler(pool *pgxpool.Pool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		var t api.TopUp
		dec := json.NewDecoder(bytes.NewReader(c.Body()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&t); err != nil || t.Validate() != nil {
			return c.Status(http.StatusBadRequest).JSON(api.Error{Code: api.CodeBadRequest, Message: "bad top-up request"})
		}
		a, err := ledger.TopUp(c.UserContext(), pool, c.Params("id"), t.Amount)
		switch {
		case errors.Is(err, ledger.ErrUnknownAccount):
			return c.Status(http.StatusNotFound).JSON(api.Error{Code: api.CodeNotFound, Message: "unknown account"})
		case err != nil:
			return fiber.NewError(http.StatusServiceUnavailable, err.Error())
		}
		return c.Status(http.StatusOK).JSON(a)
	}
}
