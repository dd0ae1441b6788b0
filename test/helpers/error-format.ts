import assert from 'node:assert/strict';
import { STATUS_CODES } from 'node:http';

/** The specification's error body: {timestamp, status: {code, message}, errors: [{message, field?, rejected_value?}]}. */
export function assertErrorBody(body: any, status: number, context = ''): void {
  const where = context ? ` (${context})` : '';
  assert.ok(body && typeof body === 'object' && !Array.isArray(body), `an error body${where}: ${JSON.stringify(body)?.slice(0, 300)}`);
  assert.deepEqual(Object.keys(body).sort(), ['errors', 'status', 'timestamp'], `error body keys${where}`);
  assert.equal(typeof body.timestamp, 'string');
  assert.ok(!Number.isNaN(Date.parse(body.timestamp)), `timestamp${where}`);
  assert.deepEqual(body.status, { code: String(status), message: STATUS_CODES[status] }, `status${where}`);
  assert.ok(Array.isArray(body.errors) && body.errors.length > 0, `errors${where}`);
  for (const e of body.errors) {
    assert.equal(typeof e.message, 'string', `message${where}`);
    for (const key of Object.keys(e)) assert.ok(['message', 'field', 'rejected_value'].includes(key), `unexpected key ${key}${where}`);
    if ('field' in e) assert.equal(typeof e.field, 'string', `field${where}`);
  }
}
