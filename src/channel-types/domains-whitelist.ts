import { Type } from '@sinclair/typebox';
import { ApiError } from '../lib/errors.js';
import { assertValid } from '../lib/validation.js';
import { originProblem } from '../lib/origins.js';

/** The `domains_whitelist` setting: page origins allowed to talk to the channel (messaging-api.md, Settings). */
export const WHITELIST_MAX = 100;

export const DomainsWhitelist = Type.Array(Type.String({ minLength: 1, maxLength: 300 }), {
  maxItems: WHITELIST_MAX,
  description: 'Page origins allowed to connect: protocol, domain, and the port when it is not standard. null or empty refuses every connection.',
});

export function checkWhitelist(value: unknown, field: string): void {
  const list = assertValid(DomainsWhitelist, value, field);
  list.forEach((entry, i) => {
    const problem = originProblem(entry);
    if (problem) throw ApiError.invalid(`${field}[${i}]`, entry, `Property '${field}[${i}]' ${problem}.`);
  });
}
