import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStoreUnavailable, StoreUnavailable, translatePostgresError, UniqueViolation } from '../../src/store/errors.js';

/** A driver error as node-postgres makes them: a message and, from the server, a SQLSTATE code. */
const driverError = (message: string, code?: string) => Object.assign(new Error(message), code === undefined ? {} : { code });

test('the database out of reach is recognised, whatever the driver says it with', () => {
  for (const error of [
    driverError('terminating connection due to administrator command', '57P01'),
    driverError('terminating connection due to immediate shutdown command', '57P02'),
    driverError('the database system is starting up', '57P03'),
    driverError('connection failure', '08006'),
    driverError('sorry, too many clients already', '53300'),
    driverError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
    driverError('read ECONNRESET', 'ECONNRESET'),
    driverError('Connection terminated unexpectedly'),
    driverError('Client has encountered a connection error and is not queryable'),
    driverError('timeout exceeded when trying to connect'),
    driverError('database "parley" is not currently accepting connections', '55000'),
    new StoreUnavailable(),
  ]) {
    assert.ok(isStoreUnavailable(error), error.message);
    assert.ok(translatePostgresError(error) instanceof StoreUnavailable, error.message);
  }
});

test('a wrong query, a constraint or anything else is not the database out of reach', () => {
  for (const error of [
    driverError('syntax error at or near "selec"', '42601'),
    driverError('duplicate key value violates unique constraint', '23505'),
    driverError('canceling statement due to statement timeout', '57014'),
    driverError('currval of sequence "s" is not yet defined in this session', '55000'),
    new Error('something else'),
    null,
    'a string',
  ]) {
    assert.equal(isStoreUnavailable(error), false, String(error));
  }
  assert.ok(
    translatePostgresError(Object.assign(driverError('dup', '23505'), { detail: 'Key (id)=(1) already exists.', table: 't' })) instanceof UniqueViolation,
  );
});
