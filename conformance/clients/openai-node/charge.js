// idemchaos conformance driver: openai (openai-node, Stainless-generated SDK) 6.49.0,
// the latest 6.x (6.x declares no `engines`; 7.x needs Node >= 22).
//
// Documented call: README "Usage" (one `new OpenAI({...})` client) and
// "Making custom/undocumented requests" > "Undocumented endpoints":
// `client.post('/charges', { body: { account, amount, currency } })` against a
// baseURL ending in /v1 (as the default https://api.openai.com/v1 does), so the
// request goes to POST /v1/charges through the SDK's own makeRequest / retry
// path. Nothing patched; this SDK sets no Idempotency-Key (no idempotencyHeader),
// and retries on its own (maxRetries default 2).
//
// Non-default settings (all in the constructor below), and nothing else:
//   baseURL  IDEMCHAOS_URL + '/v1', idemchaos's loopback server instead of api.openai.com/v1
//   timeout  IDEMCHAOS_TIMEOUT_MS (default 10 minutes)
//   apiKey   a dummy: the SDK refuses to start without one, idemchaos checks none
//
// Serves the json shape (POST /v1/charges, JSON {"account","amount","currency"}).
// Run (from the repository root, after `npm ci` in this directory):
//   idemchaos client --shape json --seeds 5 -- node conformance/clients/openai-node/charge.js
'use strict';

const { readFileSync } = require('node:fs');
const OpenAI = require('openai');

const ops = JSON.parse(readFileSync(process.env.IDEMCHAOS_OPS, 'utf8'));

const client = new OpenAI({
  baseURL: `${process.env.IDEMCHAOS_URL}/v1`, // idemchaos's loopback server instead of https://api.openai.com/v1
  timeout: Number(process.env.IDEMCHAOS_TIMEOUT_MS || 1000), // the timeout idemchaos asks for (default 10 minutes)
  apiKey: 'sk-idemchaos', // dummy: required by the constructor, idemchaos checks none
});

const oneLine = (s) => String(s).replace(/\s+/g, ' ').trim();

async function main() {
  for (const op of ops) {
    try {
      const charge = await client.post('/charges', {
        body: { account: op.account, amount: op.amount, currency: op.currency },
      });
      console.log(`${op.op} succeeded ${charge.id}`);
    } catch (err) {
      const status = err.status ? ` ${err.status}` : '';
      console.log(`${op.op} failed ${oneLine(`${err.name || err.constructor.name}${status}: ${err.message}`)}`);
    }
  }
}

main();
