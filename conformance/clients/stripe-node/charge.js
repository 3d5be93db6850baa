// idemchaos conformance driver: stripe-node (npm `stripe`) 23.2.0.
//
// Documented call: README "Usage" (CJS: `const stripeClient = Stripe('sk_test_...')`,
// one client, promise-returning resource methods) with "Initialize with config
// object" for the options below; the charge is `stripeClient.charges.create(
// {amount, currency, customer})`. Nothing patched; the library sets its own
// Idempotency-Key (`stripe-node-retry-<uuid>`) and does its own retries.
//
// Non-default settings (all in the config object below), and nothing else:
//   host, port, protocol  point it at idemchaos's loopback server (IDEMCHAOS_URL)
//   timeout               IDEMCHAOS_TIMEOUT_MS, the timeout idemchaos asks for
//   API key 'sk_test_idemchaos'  a dummy: idemchaos checks no credentials
// maxNetworkRetries is left at the library default (2 in the code, though the
// README table says 1).
//
// Run (from the repository root, after `npm ci` in this directory):
//   idemchaos client --shape stripe --seeds 5 -- node conformance/clients/stripe-node/charge.js
'use strict';

const { readFileSync } = require('node:fs');
const Stripe = require('stripe');

const url = new URL(process.env.IDEMCHAOS_URL);
const ops = JSON.parse(readFileSync(process.env.IDEMCHAOS_OPS, 'utf8'));

const stripeClient = Stripe('sk_test_idemchaos', { // dummy key: idemchaos checks none
  host: url.hostname, // idemchaos's loopback server instead of api.stripe.com
  port: url.port, // its free port instead of 443
  protocol: 'http', // idemchaos serves plain HTTP on loopback
  timeout: Number(process.env.IDEMCHAOS_TIMEOUT_MS || 1000), // the timeout idemchaos asks for (default 80000)
});

const oneLine = (s) => String(s).replace(/\s+/g, ' ').trim();

async function main() {
  for (const op of ops) {
    try {
      const charge = await stripeClient.charges.create({
        amount: op.amount,
        currency: op.currency,
        customer: op.account,
      });
      console.log(`${op.op} succeeded ${charge.id}`);
    } catch (err) {
      const status = err.statusCode ? ` ${err.statusCode}` : '';
      console.log(`${op.op} failed ${oneLine(`${err.type || err.name}${status}: ${err.message}`)}`);
    }
  }
}

main();
