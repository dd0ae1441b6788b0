import assert from 'node:assert/strict';
import { ApiError, type ErrorDetail } from '../../src/lib/errors.js';

/** Runs a check that should refuse its input: null when it passed, else the first detail of the 422 it threw. */
export function failure(fn: () => unknown): ErrorDetail | null {
  try {
    fn();
    return null;
  } catch (error) {
    assert.ok(error instanceof ApiError, `expected ApiError, got ${String(error)}`);
    assert.equal(error.status, 422);
    return error.details[0]!;
  }
}
