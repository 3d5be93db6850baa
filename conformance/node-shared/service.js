// What every Node conformance target shares, none of it part of the library
// under test: reading the request, the charge on the ledger, idemchaos's
// failpoint protocol (docs/failpoints.md) and the answer. The charge is
// targets/ledger.Charge of idemchaos, statement for statement, in one
// transaction: debit the account if it holds the amount, record the charge
// row; the harness has migrated the ledger and opened the accounts.
'use strict';

const http = require('node:http');

const FAILPOINTS = 'x-idemchaos-failpoints';
const ATTEMPT = 'x-idemchaos-attempt';
const CALL_TIMEOUT_MS = 15000; // the protocol's bound on the service's side

// failpoints is the protocol for one request: at(point, key) reports a point
// and resolves when the harness answers (it may hold the answer: a gate, a
// delay); end() reports that the request's work is over. A request without
// the header makes no call.
function failpoints(req) {
  const url = req.headers[FAILPOINTS];
  const attempt = req.headers[ATTEMPT] || '';
  let called = false;
  let done = !url || !/^http:\/\/(127\.[0-9.]+|localhost|\[::1\]):[0-9]+\//.test(url);
  let lastKey = '';
  const post = async (point, key) => {
    try {
      const res = await fetch(url, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ point, key, attempt }), signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      });
      await res.arrayBuffer();
    } catch {
      done = true; // unreachable: the request goes on without the harness
    }
  };
  return {
    async at(point, key) {
      if (done) return;
      called = true;
      lastKey = key || '';
      await post(point, lastKey);
    },
    async end() {
      if (done || !called) return;
      done = true;
      await post('end', lastKey);
    },
  };
}

// readJSON reads a request body of at most 64 KiB as JSON (undefined if it
// is not JSON).
function readJSON(req) {
  return new Promise((resolve) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size <= 65536) chunks.push(c);
    });
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      try {
        resolve({ raw, body: JSON.parse(raw) });
      } catch {
        resolve({ raw, body: undefined });
      }
    });
    req.on('error', () => resolve({ raw: '', body: undefined }));
  });
}

function validCharge(b) {
  return b && typeof b.account === 'string' && b.account !== '' && Number.isInteger(b.amount) && b.amount > 0 &&
    typeof b.currency === 'string' && b.currency.length === 3;
}

function failure(status, code, message) {
  return { status, body: { code, message } };
}

// charge makes the charge of body under key, reporting before-commit and
// after-commit to fp, and returns the answer: 201 and the charge; 402 or
// 404 for a business refusal; 503 when the ledger failed; 504 when alive()
// (if given) says, right before the commit, that the invocation is past
// its deadline (it rolls back, as a stopped invocation does).
async function charge(pool, fp, body, key, attempt, alive) {
  if (!validCharge(body)) return failure(400, 'invalid_request', 'bad charge request');
  let client;
  try {
    client = await pool.connect();
  } catch (err) {
    return failure(503, 'store_unavailable', String(err.message || err));
  }
  // a link cut while the client is checked out is emitted on the client:
  // the query in flight fails with it, the process must not
  const onError = () => {};
  client.on('error', onError);
  let release = true;
  try {
    await client.query('BEGIN');
    const debit = await client.query(
      'UPDATE accounts SET balance = balance - $2 WHERE id = $1 AND currency = $3 AND balance >= $2 RETURNING balance',
      [body.account, body.amount, body.currency]);
    if (debit.rowCount === 0) {
      await client.query('ROLLBACK');
      const known = await client.query('SELECT count(*)::int AS n FROM accounts WHERE id = $1', [body.account]);
      return known.rows[0].n === 0 ? failure(404, 'not_found', 'unknown account')
        : failure(402, 'insufficient_funds', 'insufficient funds');
    }
    const row = await client.query(
      `INSERT INTO charges (account, amount, currency, idempotency_key, attempt_id, replica)
       VALUES ($1, $2, $3, NULLIF($4, ''), NULLIF($5, ''), 0) RETURNING seq`,
      [body.account, body.amount, body.currency, key || '', attempt || '']);
    await fp.at('before-commit', key);
    if (alive && !alive()) {
      await client.query('ROLLBACK');
      return failure(504, 'timeout', 'the invocation timed out');
    }
    await client.query('COMMIT');
    await fp.at('after-commit', key);
    return {
      status: 201,
      body: { id: 'ch_' + row.rows[0].seq, account: body.account, amount: body.amount, currency: body.currency,
        balance: Number(debit.rows[0].balance) },
    };
  } catch (err) {
    release = err; // a broken connection is not given back to the pool
    return failure(503, 'store_unavailable', String(err.message || err));
  } finally {
    client.off('error', onError);
    client.release(release === true ? undefined : release);
  }
}

function send(res, status, body, headers = {}) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

// args reads --name value pairs.
function args(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || i + 1 >= argv.length) throw new Error(`bad argument ${argv[i]}: want --name value`);
    out[argv[i].slice(2)] = argv[i + 1];
  }
  return out;
}

// TOP_UP is the path of the top-up endpoint, POST /v1/accounts/{id}/top-ups.
const TOP_UP = /^\/v1\/accounts\/([^/]+)\/top-ups$/;

// topUp pays body.amount into account id, outside the idempotency layer (a
// top-up is not a charge, and its request carries no key): 200 and the
// account's balance, 400 for a bad body, 404 for an unknown account, 503
// when the ledger failed. The credited column grows with the balance, as
// the ledger's own TopUp keeps it.
async function topUp(pool, id, body) {
  if (!body || typeof body !== 'object' || Object.keys(body).some((k) => k !== 'amount') ||
      !Number.isSafeInteger(body.amount) || body.amount <= 0) {
    return failure(400, 'invalid_request', 'body: amount must be a positive whole number of minor units');
  }
  try {
    const r = await pool.query(
      'UPDATE accounts SET balance = balance + $2, credited = credited + $2 WHERE id = $1 RETURNING balance, currency',
      [id, body.amount]);
    if (r.rowCount === 0) return failure(404, 'not_found', 'unknown account');
    return { status: 200, body: { id, balance: Number(r.rows[0].balance), currency: r.rows[0].currency } };
  } catch (err) {
    return failure(503, 'store_unavailable', String(err.message || err));
  }
}

// serve answers POST /v1/charges with handle(req, res, fp, parsed), POST
// /v1/accounts/{id}/top-ups with topUp on pool, and everything else 404;
// it prints "NAME: listening on http://ADDR" once it serves and closes on
// SIGINT or SIGTERM (then calls close).
function serve(name, listen, pool, handle, close) {
  const [host, port] = listen.split(/:(?=[0-9]+$)/);
  const server = http.createServer(async (req, res) => {
    const account = req.method === 'POST' && TOP_UP.exec(req.url);
    if (account) {
      const answer = await topUp(pool, decodeURIComponent(account[1]), (await readJSON(req)).body);
      send(res, answer.status, answer.body);
      return;
    }
    if (req.method !== 'POST' || req.url !== '/v1/charges') {
      send(res, 404, { code: 'not_found', message: 'not found' });
      return;
    }
    const fp = failpoints(req);
    try {
      await handle(req, res, fp, await readJSON(req));
    } catch (err) {
      if (!res.headersSent) send(res, 500, { code: 'internal', message: String(err.message || err) });
    } finally {
      await fp.end();
    }
  });
  server.keepAliveTimeout = 5000;
  server.listen(Number(port), host, () => {
    const a = server.address();
    process.stdout.write(`${name}: listening on http://${a.address}:${a.port}\n`);
  });
  const stop = () => server.close(() => Promise.resolve(close()).finally(() => process.exit(0)));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

module.exports = { args, charge, send, serve, ATTEMPT };
