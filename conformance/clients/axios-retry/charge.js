// idemchaos conformance driver: axios 1.21.1 with axios-retry 4.5.0.
//
// Documented call: axios-retry README "Usage", the basic form
// `axiosRetry(axios, { retries: 3 })` on the default axios instance (CommonJS:
// `require('axios-retry').default`, as the README's comment shows), then a plain
// `axios.post(url, body, config)` per operation. axios-retry's other options are
// left at their defaults (retryCondition isNetworkOrIdempotentRequestError,
// retryDelay noDelay, shouldResetTimeout false). Nothing patched.
// The CALLER sets the Idempotency-Key: a crypto.randomUUID() made once per
// operation, before its first try, in the request config's headers (which
// axios-retry re-sends unchanged on every retry).
//
// Non-default settings, and nothing else:
//   retries: 3      the README's example value (it is also the default)
//   URL             IDEMCHAOS_URL + '/v1/charges', idemchaos's loopback server
//   timeout         IDEMCHAOS_TIMEOUT_MS on each request (axios's default is none)
//   Idempotency-Key header  the caller's key, the point of the exercise
//
// Serves the json shape (POST /v1/charges, JSON {"account","amount","currency"}).
// Run (from the repository root, after `npm ci` in this directory):
//   idemchaos client --shape json --seeds 5 -- node conformance/clients/axios-retry/charge.js
'use strict';

const { readFileSync } = require('node:fs');
const { randomUUID } = require('node:crypto');
const axios = require('axios');
const axiosRetry = require('axios-retry').default;

const url = `${process.env.IDEMCHAOS_URL}/v1/charges`;
const ops = JSON.parse(readFileSync(process.env.IDEMCHAOS_OPS, 'utf8'));
const timeout = Number(process.env.IDEMCHAOS_TIMEOUT_MS || 1000);

axiosRetry(axios, { retries: 3 }); // the README's basic usage, unchanged

const oneLine = (s) => String(s).replace(/\s+/g, ' ').trim();

async function main() {
  for (const op of ops) {
    const key = randomUUID(); // once per operation, kept on every retry
    try {
      const res = await axios.post(
        url,
        { account: op.account, amount: op.amount, currency: op.currency },
        {
          headers: { 'Idempotency-Key': key }, // the caller's key (axios-retry adds none)
          timeout, // the timeout idemchaos asks for (axios default: none)
        },
      );
      console.log(`${op.op} succeeded ${res.data.id}`);
    } catch (err) {
      const status = err.response ? ` ${err.response.status}` : '';
      const code = err.code ? ` ${err.code}` : '';
      console.log(`${op.op} failed ${oneLine(`${err.name}${code}${status}: ${err.message}`)}`);
    }
  }
}

main();
