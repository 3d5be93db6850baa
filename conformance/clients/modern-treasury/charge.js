// idemchaos conformance driver: modern-treasury (Stainless-generated SDK) 3.3.0.
//
// Documented call: README "Usage" (one `new ModernTreasury({...})` client) and
// "Making custom/undocumented requests" > "Undocumented endpoints":
// `client.post('/v1/charges', { body: { account, amount, currency } })`, which
// goes through the same makeRequest / retry path as the SDK's own methods
// (README: "Options on the client, such as retries, will be respected").
// Nothing patched; the SDK sets its own Idempotency-Key
// (`stainless-node-retry-<uuid>`) and does its own retries (maxRetries default 2).
//
// Non-default settings (all in the constructor below), and nothing else:
//   baseURL         IDEMCHAOS_URL, idemchaos's loopback server instead of app.moderntreasury.com
//   timeout         IDEMCHAOS_TIMEOUT_MS (default 1 minute)
//   organizationID, apiKey  dummies: the SDK refuses to start without them, idemchaos checks none
//
// Serves the json shape (POST /v1/charges, JSON {"account","amount","currency"}).
// Run (from the repository root, after `npm ci` in this directory):
//   idemchaos client --shape json --seeds 5 -- node conformance/clients/modern-treasury/charge.js
'use strict';

const { readFileSync } = require('node:fs');
const ModernTreasury = require('modern-treasury');

const ops = JSON.parse(readFileSync(process.env.IDEMCHAOS_OPS, 'utf8'));

const client = new ModernTreasury({
  baseURL: process.env.IDEMCHAOS_URL, // idemchaos's loopback server instead of https://app.moderntreasury.com
  timeout: Number(process.env.IDEMCHAOS_TIMEOUT_MS || 1000), // the timeout idemchaos asks for (default 1 minute)
  organizationID: 'idemchaos-org', // dummy: required by the constructor, idemchaos checks none
  apiKey: 'idemchaos-key', // dummy: required by the constructor, idemchaos checks none
});

const oneLine = (s) => String(s).replace(/\s+/g, ' ').trim();

async function main() {
  for (const op of ops) {
    try {
      const charge = await client.post('/v1/charges', {
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
