import { STATUS_CODES } from 'node:http';
import type { ErrorDetail } from '../lib/errors.js';

/** The specification's error body; the one place it is rendered. */
export function errorBody(status: number, details: ErrorDetail[], now = Date.now()) {
  return {
    timestamp: new Date(now).toISOString(),
    status: { code: String(status), message: STATUS_CODES[status] ?? 'Error' },
    errors: details,
  };
}
