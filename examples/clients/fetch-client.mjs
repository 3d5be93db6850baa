// A payment client written the way a team writes one from the
// Idempotency-Key draft: Node's fetch, a key per operation kept on every
// retry, exponential back-off with jitter that honours Retry-After, a
// request timeout, and an outcome shown to the user per operation.
//
//   idemchaos client -- node examples/clients/fetch-client.mjs
//   idemchaos client -- node examples/clients/fetch-client.mjs --mistake new-key-per-try
//   idemchaos client --require-key -- node examples/clients/fetch-client.mjs --mistake no-key,retry-everything
//
// It reads what to charge from idemchaos (IDEMCHAOS_URL, IDEMCHAOS_OPS,
// IDEMCHAOS_TIMEOUT_MS, IDEMCHAOS_SHAPE) and prints one line per
// operation: "op-01 succeeded ch_12" or "op-01 failed <what the user saw>".
//
// --mistake makes it a client with mistakes idemchaos catches (one, or several
// comma-separated):
//   new-key-per-try   a new key on every try (each retry a new payment)
//   no-key            no key at all
//   no-backoff        retries 409, 429 and 503 at once, Retry-After unread
//   gives-up          no retry: a network error is shown as a failure
//   timestamp-body    the body carries the time of each try
//   key-per-minute    the key is the current minute: operations share it
//   retry-everything  retries every error, a final 4xx included
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';

const mistakes = ['new-key-per-try', 'no-key', 'no-backoff', 'gives-up', 'timestamp-body', 'key-per-minute', 'retry-everything'];
const at = process.argv.indexOf('--mistake');
const made = new Set(at < 0 ? [] : String(process.argv[at + 1]).split(','));
for (const m of made) {
  if (!mistakes.includes(m)) {
    console.error(`fetch-client: unknown --mistake ${m} (want one or more of ${mistakes.join(', ')}, comma-separated)`);
    process.exit(2);
  }
}
const mistake = (m) => made.has(m);

const base = process.env.IDEMCHAOS_URL;
const ops = JSON.parse(readFileSync(process.env.IDEMCHAOS_OPS, 'utf8'));
const timeout = Number(process.env.IDEMCHAOS_TIMEOUT_MS || 1000);
const form = process.env.IDEMCHAOS_SHAPE === 'stripe';
const maxTries = mistake('gives-up') ? 1 : 5;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function body(op) {
  const fields = form
    ? { customer: op.account, amount: String(op.amount), currency: op.currency }
    : { account: op.account, amount: op.amount, currency: op.currency };
  if (mistake('timestamp-body')) fields[form ? 'metadata[requested_at]' : 'requested_at'] = String(Date.now());
  return form ? new URLSearchParams(fields).toString() : JSON.stringify(fields);
}

function keyFor(operationKey) {
  if (mistake('no-key')) return '';
  if (mistake('new-key-per-try')) return randomUUID();
  if (mistake('key-per-minute')) return `pay-${Math.floor(Date.now() / 60000)}`;
  return operationKey;
}

// backoff is the wait before try n (from 2): 250ms doubling, jittered,
// at most 4s; at least the Retry-After the last answer asked for.
function backoff(n, retryAfter) {
  if (mistake('no-backoff')) return 0;
  const exp = Math.min(4000, 250 * 2 ** (n - 2));
  const jittered = exp * (0.75 + Math.random() / 2);
  return Math.max(jittered, retryAfter * 1000);
}

function retriable(status) {
  return mistake('retry-everything') || status === 409 || status === 429 || status >= 500;
}

async function charge(op) {
  const operationKey = randomUUID(); // once per operation, before the first try
  let said = 'no answer';
  let retryAfter = 0;
  for (let n = 1; n <= maxTries; n++) {
    if (n > 1) await sleep(backoff(n, retryAfter));
    retryAfter = 0;
    const headers = { 'Content-Type': form ? 'application/x-www-form-urlencoded' : 'application/json' };
    const key = keyFor(operationKey);
    if (key) headers['Idempotency-Key'] = key;
    try {
      const res = await fetch(`${base}/v1/charges`, { method: 'POST', headers, body: body(op), signal: AbortSignal.timeout(timeout) });
      const answer = await res.json().catch(() => ({}));
      if (res.ok) return `succeeded ${answer.id}`;
      said = `${res.status} ${answer.code || answer.error?.type || ''}`.trim();
      if (!retriable(res.status)) return `failed ${said}`;
      retryAfter = Number(res.headers.get('retry-after') || 0);
    } catch (err) {
      said = `network error (${err.cause?.code || err.name})`;
    }
  }
  return `failed ${said}, retry?`;
}

for (const op of ops) {
  console.log(`${op.op} ${await charge(op)}`);
}
