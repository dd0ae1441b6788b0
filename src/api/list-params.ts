import type { FastifyReply } from 'fastify';
import { parseId } from '../lib/ids.js';
import { ApiError } from '../lib/errors.js';

export interface Page {
  max: number;
  offset: number;
}

export function pageOf(query: { max?: number; offset?: number }): Page {
  return { max: query.max ?? 10, offset: query.offset ?? 0 };
}

/** Every list answers its total count in x-total-count. */
export function sendList<T>(reply: FastifyReply, items: T[], total: number): T[] {
  void reply.header('x-total-count', String(total));
  return items;
}

/** A path id that cannot exist answers 404, as a missing one does. */
export function pathId(value: string, what: string): number {
  const id = parseId(value);
  if (id === null) throw ApiError.notFound(what);
  return id;
}
