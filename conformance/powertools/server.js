// A conformance target: the charge of idemchaos's payment API as a Lambda
// handler made idempotent with makeIdempotent of
// @aws-lambda-powertools/idempotency, on one of its persistence layers
// (--store): the cache persistence layer (CachePersistenceLayer) over a
// connected @redis/client, as the documentation's "Using Redis Client"
// example sets it up, or the DynamoDB persistence layer
// (DynamoDBPersistenceLayer) on a table whose partition key is id, the
// documentation's first example, its AWS SDK v3 client pointed at
// --dynamodb-endpoint through clientConfig (the documented way to
// configure the client it makes). The configuration is the documented one
// for an API Gateway event: the key is
// the Idempotency-Key header (eventKeyJmesPath), and a replay is marked
// Idempotent-Replayed by a responseHook (the documentation's "Manipulating
// the idempotent response"); everything else is the default (no payload
// validation, records kept an hour). payloadValidationJmesPath is left
// out on purpose: on this persistence layer it refuses every replay
// (CachePersistenceLayer._updateRecord drops the payload hash; see
// CONFORMANCE.md).
//
// Each HTTP request is one invocation: an API Gateway-style event and a
// Lambda-like context whose getRemainingTimeInMillis counts down from
// --function-timeout-ms (Lambda's default 3 s), so makeIdempotent
// registers it and the in-progress record carries its expiry, as in Lambda.
// As Lambda stops an invocation at its timeout, an invocation past its
// deadline does not commit its charge: it rolls back and answers 504.
// An idempotency error is answered 409 (in progress), 422 (payload
// mismatch) or 500; the handler's own answer is sent as returned (or
// replayed).
//
//   node server.js --listen 127.0.0.1:0 --postgres-url URL --redis-url URL [--function-timeout-ms 3000]
//   node server.js --store dynamodb --listen 127.0.0.1:0 --postgres-url URL --dynamodb-endpoint URL --dynamodb-table NAME [...]
'use strict';

const { randomUUID } = require('node:crypto');
const { Pool } = require('pg');
const { createClient } = require('@redis/client');
const { IdempotencyConfig, makeIdempotent } = require('@aws-lambda-powertools/idempotency');
const svc = require('../node-shared/service.js');

// statusOf answers the library's errors (src/errors.ts).
function statusOf(err) {
  switch (err && err.name) {
    case 'IdempotencyAlreadyInProgressError': return 409;
    case 'IdempotencyValidationError': return 422;
    default: return 500;
  }
}

// store is the persistence layer --store names, and how to close it; only
// its own package is loaded (a Redis row's process loads no AWS SDK).
async function store(a) {
  switch (a.store || 'redis') {
    case 'redis': {
      const { CachePersistenceLayer } = require('@aws-lambda-powertools/idempotency/cache');
      const client = await createClient({ url: a['redis-url'] }).connect();
      client.on('error', () => {}); // a cut link: the command in flight says so
      return { persistenceStore: new CachePersistenceLayer({ client }), close: () => client.quit().catch(() => {}) };
    }
    case 'dynamodb': {
      const { DynamoDBPersistenceLayer } = require('@aws-lambda-powertools/idempotency/dynamodb');
      const persistenceStore = new DynamoDBPersistenceLayer({
        tableName: a['dynamodb-table'],
        clientConfig: {
          endpoint: a['dynamodb-endpoint'], region: 'us-east-1',
          credentials: { accessKeyId: 'idemchaos', secretAccessKey: 'idemchaos' }, // dynalite checks none
        },
      });
      return { persistenceStore, close: async () => {} };
    }
  }
  throw new Error(`--store ${a.store}: want redis or dynamodb`);
}

async function main() {
  const a = svc.args(process.argv.slice(2));
  const timeout = Number(a['function-timeout-ms'] || 3000);
  const pool = new Pool({ connectionString: a['postgres-url'], max: 16 });
  pool.on('error', () => {});
  const { persistenceStore, close } = await store(a);
  const config = new IdempotencyConfig({
    eventKeyJmesPath: 'headers."idempotency-key"',
    responseHook: (response, record) => {
      response.headers = { ...(response.headers || {}), 'idempotent-replayed': 'true' };
      return response;
    },
  });
  const handler = makeIdempotent(async (event, context) => {
    const fp = context.failpoints;
    const key = event.headers['idempotency-key'] || '';
    await fp.at('after-check', key);
    await fp.at('after-claim', key);
    const answer = await svc.charge(pool, fp, JSON.parse(event.body || 'null'), key, event.headers[svc.ATTEMPT],
      () => context.getRemainingTimeInMillis() > 0);
    if (answer.status >= 500) {
      // an unhandled error: the library deletes the in-progress record
      throw Object.assign(new Error(answer.body.message), { answer });
    }
    return { statusCode: answer.status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(answer.body) };
  }, { persistenceStore, config });
  svc.serve('powertools', a.listen || '127.0.0.1:0', pool, async (req, res, fp, { raw }) => {
    const deadline = Date.now() + timeout;
    const event = { httpMethod: req.method, path: req.url, headers: req.headers, body: raw, isBase64Encoded: false };
    const context = {
      functionName: 'charge', awsRequestId: randomUUID(), failpoints: fp,
      getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    };
    let result;
    try {
      result = await handler(event, context);
    } catch (err) {
      if (err.answer) {
        svc.send(res, err.answer.status, err.answer.body);
        return;
      }
      svc.send(res, statusOf(err), { code: err.name, message: err.message });
      return;
    }
    svc.send(res, result.statusCode, result.body, result.headers);
  }, async () => {
    await close();
    await pool.end();
  });
}

main().catch((err) => {
  process.stderr.write(`powertools: ${err.message || err}\n`);
  process.exit(1);
});
