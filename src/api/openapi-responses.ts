import type { TSchema } from '@sinclair/typebox';
import { ErrorBody } from '../schemas/common.js';
import type { ComponentSchemas } from './openapi-components.js';

type Json = Record<string, unknown>;

/** What decides the errors an operation can answer besides the ones its route declares. */
export interface OperationShape {
  authenticated: boolean;
  hasBody: boolean;
  hasQuery: boolean;
  hasParams: boolean;
  /** An operation of the administration app's own API (session cookie and CSRF token, not an access token). */
  admin?: boolean;
}

const SUCCESS: Record<string, string> = {
  '200': 'OK.',
  '201': 'Created. `Location` holds the address of the new resource.',
  '202': 'Accepted.',
  '204': 'Done; no body.',
};

/** The cases behind each error status, as the service answers them (api/errors.ts, api/token-guard.ts). */
const ERRORS: Record<string, string> = {
  '400': 'The body is not valid JSON, or not a JSON object.',
  '401': 'The access token is missing (`Missing access token.`) or unknown (`Wrong accessToken.`).',
  '404': 'No such resource, or it belongs to another account (answered the same way).',
  '413': 'The body is larger than the configured limit (BODY_LIMIT_BYTES).',
  '415': 'The body is not JSON: send `Content-Type: application/json`.',
  '422': 'A field, query parameter or header is invalid: `errors[].field` names it and `rejected_value` holds the value.',
  '429': 'Over the hourly request quota (every request is refused until `X-RateLimit-Reset`), or over the cap on simultaneous requests.',
  '500': 'An unexpected error; the message carries the request id (also in `X-Request-Id`).',
  '502': 'The platform behind the channel refused the call or could not be reached.',
  '503': 'The server is shutting down (send the request again), or cannot reach its store.',
};

/** Where the administration app's API answers otherwise (api/admin-guard.ts). */
const ADMIN_ERRORS: Record<string, string> = {
  '401': 'No session: the session cookie is missing or the session ended.',
  '403':
    'A change without the CSRF token of the session (`X-CSRF-Token`) or from another origin, a user who must change their password first, or an owner-only action of a member.',
  '429': 'Over the hourly request quota (changes), too many reads of the session, or too many requests of the session at once (`Retry-After`).',
};

const Integer = (description: string) => ({ type: 'integer', description });

export const RATE_LIMIT_HEADERS: Record<string, Json> = {
  'X-RateLimit-Limit': Integer('Requests the account may make per hour.'),
  'X-RateLimit-Remaining': Integer('Requests left in the current hour.'),
  'X-RateLimit-Reset': Integer('When the hourly window resets, in UTC epoch seconds.'),
};
const LOCATION = { type: 'string', format: 'uri', description: 'The full address of the created resource: {base_url}/<resource>/<id>.' };
const TOTAL_COUNT = Integer('How many items the whole list holds (the page is `max` items from `offset`).');

function isArraySchema(schema: TSchema): boolean {
  return (schema as { type?: unknown }).type === 'array';
}

/**
 * The response map of one operation in the form @fastify/swagger reads (a schema per status,
 * with `description` and `headers` beside it): the statuses its route declares, and the errors
 * every operation of its shape can answer, each error with the specification's error body.
 */
export function documentResponses(
  declared: Record<string, TSchema>,
  extraHeaders: Record<string, Record<string, Json>>,
  shape: OperationShape,
  components: ComponentSchemas,
): Record<string, Json> {
  const statuses = new Set(Object.keys(declared));
  const add = (...codes: string[]) => codes.forEach((c) => statuses.add(c));
  if (shape.admin) add('429', ...(shape.authenticated ? ['401', '403'] : []));
  else if (shape.authenticated) add('401', '429');
  if (shape.hasBody) add('400', '413', '415', '422');
  if (shape.hasQuery) add('422');
  if (shape.hasParams) add('404');
  add('500', '503');

  const out: Record<string, Json> = {};
  for (const status of [...statuses].sort()) {
    const success = status.startsWith('2');
    const schema = declared[status] ?? ErrorBody;
    const headers: Record<string, Json> = {};
    // 401 and the 503 of a server shutting down are answered before the quota is counted. The
    // administration API sends the quota headers on changes only: they are not promised there.
    if (shape.authenticated && !shape.admin && status !== '401' && status !== '503') Object.assign(headers, RATE_LIMIT_HEADERS);
    if (status === '201') headers.Location = LOCATION;
    if (status === '200' && isArraySchema(schema)) headers['x-total-count'] = TOTAL_COUNT;
    Object.assign(headers, extraHeaders[status]);
    const description = (success ? SUCCESS[status] : ((shape.admin ? ADMIN_ERRORS[status] : undefined) ?? ERRORS[status])) ?? 'See the error body.';
    const documented = components.ref(schema) as Json;
    // @fastify/swagger takes the text from `description` beside a `$ref`, and from
    // `x-response-description` (which it removes) in a schema of its own.
    const text = '$ref' in documented ? { description } : { 'x-response-description': description };
    out[status] = { ...documented, ...text, ...(Object.keys(headers).length > 0 ? { headers } : {}) };
  }
  return out;
}

/**
 * Headers always sent with an answer are marked required (@fastify/swagger has no place for it):
 * `Location` on 201, `x-total-count` on lists, the rate limit headers on successful answers.
 */
export function markRequiredHeaders(document: Json): void {
  for (const item of Object.values((document.paths ?? {}) as Record<string, Record<string, Json>>)) {
    for (const operation of Object.values(item)) {
      for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, Json>)) {
        const headers = (response.headers ?? {}) as Record<string, Json>;
        for (const [name, header] of Object.entries(headers)) {
          const always = (name === 'Location' && status === '201') || name === 'x-total-count' || (name in RATE_LIMIT_HEADERS && status.startsWith('2'));
          if (always) header.required = true;
        }
      }
    }
  }
}
