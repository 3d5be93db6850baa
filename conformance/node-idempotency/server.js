// A conformance target: the charge of idemchaos's payment API behind
// @node-idempotency/core, used as its Readme says (onRequest before the
// business logic, onResponse with what it answered) with the library's
// defaults (header Idempotency-Key, 24 h TTL, no waiting on an in-flight
// key), on its in-memory or its Redis storage adapter. It answers as the
// project's own Express plugin does (packages/plugin-express/src/middleware.ts,
// not published): an IdempotencyError becomes the status of
// idempotency2HttpCodeMap (packages/shared/src/http.ts), a stored response
// is sent again with its status and Idempotent-Replayed: true, and every
// response is stored, an error as `error`.
//
//   node server.js --listen 127.0.0.1:0 --postgres-url URL --storage memory|redis [--redis-url URL]
'use strict';

const { Pool } = require('pg');
const { Idempotency, IdempotencyError } = require('@node-idempotency/core');
const { MemoryStorageAdapter } = require('@node-idempotency/storage-adapter-memory');
const { RedisStorageAdapter } = require('@node-idempotency/storage-adapter-redis');
const svc = require('../node-shared/service.js');

// idempotency2HttpCodeMap of @node-idempotency/shared (packages/shared/src/http.ts).
const statusOf = {
  IDEMPOTENCY_FINGERPRINT_MISSMATCH: 422,
  IDEMPOTENCY_KEY_LEN_EXEEDED: 400,
  IDEMPOTENCY_KEY_MISSING: 400,
  REQUEST_IN_PROGRESS: 409,
};

async function main() {
  const a = svc.args(process.argv.slice(2));
  const pool = new Pool({ connectionString: a['postgres-url'], max: 16 });
  pool.on('error', () => {}); // a cut link: the next query says so
  let storage;
  if (a.storage === 'redis') {
    storage = new RedisStorageAdapter({ url: a['redis-url'] });
    await storage.connect();
  } else if (a.storage === 'memory') {
    storage = new MemoryStorageAdapter();
  } else {
    throw new Error(`--storage ${a.storage}: want memory or redis`);
  }
  const idempotency = new Idempotency(storage);
  svc.serve('node-idempotency', a.listen || '127.0.0.1:0', pool, async (req, res, fp, { body }) => {
    const ireq = { headers: req.headers, body, path: req.url, method: req.method };
    let stored;
    try {
      stored = await idempotency.onRequest(ireq);
    } catch (err) {
      if (!(err instanceof IdempotencyError)) throw err;
      const headers = err.code === 'REQUEST_IN_PROGRESS' ? { 'retry-after': '1' } : {};
      svc.send(res, statusOf[err.code] || 500, { code: err.code, message: err.message }, headers);
      return;
    }
    if (stored) {
      svc.send(res, stored.additional.statusCode, stored.body ?? stored.error, { 'idempotent-replayed': 'true' });
      return;
    }
    const key = req.headers['idempotency-key'] || '';
    await fp.at('after-check', key);
    await fp.at('after-claim', key);
    const answer = await svc.charge(pool, fp, body, key, req.headers[svc.ATTEMPT]);
    await fp.at('before-store-response', key);
    await idempotency.onResponse(ireq, {
      additional: { statusCode: answer.status },
      ...(answer.status < 400 ? { body: answer.body } : { error: answer.body }),
    });
    svc.send(res, answer.status, answer.body);
  }, async () => {
    if (storage.disconnect) await storage.disconnect();
    await pool.end();
  });
}

main().catch((err) => {
  process.stderr.write(`node-idempotency: ${err.message || err}\n`);
  process.exit(1);
});
