import type { FastifyRequest } from 'fastify';
import type { UploadedFile } from '../shared/form-body.js';
import type { Sleeper } from '../shared/sleep.js';
import { originFor } from '../shared/standin.js';
import type { JsonRecord } from '../shared/values.js';
import { BotError, tooManyRequests } from './errors.js';
import type { ResolvedBotmsgOptions } from './options.js';
import type { BmBot, BmUser, BotmsgState } from './state.js';
import type { UpdateDispatcher } from './updates.js';

export interface BmContext {
  state: BotmsgState;
  options: ResolvedBotmsgOptions;
  sleeper: Sleeper;
  updates: UpdateDispatcher;
}

/** One Bot API method call after authentication and parameter parsing. */
export interface MethodCall {
  bot: BmBot;
  params: Record<string, unknown>;
  files: UploadedFile[];
  origin: string;
}

/** A result that the platform answers together with a `description` (e.g. setWebhook). */
export class Described {
  constructor(
    readonly result: unknown,
    readonly description: string,
  ) {}
}

export type MethodHandler = (ctx: BmContext, call: MethodCall) => Promise<unknown>;

export function originOf(ctx: BmContext, req: FastifyRequest): string {
  return originFor(req, ctx.options.publicBaseUrl ?? ctx.state.baseUrl);
}

export function botUser(bot: BmBot): JsonRecord {
  return { id: bot.id, is_bot: true, first_name: bot.firstName, username: bot.username };
}

export function userView(user: BmUser): JsonRecord {
  const out: JsonRecord = { id: user.id, is_bot: false, first_name: user.firstName };
  if (user.lastName !== null) out.last_name = user.lastName;
  if (user.username !== null) out.username = user.username;
  out.language_code = user.languageCode;
  return out;
}

export function chatView(user: BmUser): JsonRecord {
  const out: JsonRecord = { id: user.id, first_name: user.firstName };
  if (user.lastName !== null) out.last_name = user.lastName;
  if (user.username !== null) out.username = user.username;
  out.type = 'private';
  return out;
}

export function seconds(ms: number): number {
  return Math.floor(ms / 1000);
}

/** Applies an injected fault for this method: throws the platform error, or hangs and continues. */
export async function applyFault(ctx: BmContext, method: string): Promise<void> {
  const fault = ctx.state.faults.take(method);
  if (!fault) return;
  switch (fault.kind) {
    case 'timeout':
      await ctx.sleeper.sleep(fault.delayMs);
      if (fault.status !== undefined) throw new BotError(fault.status, fault.message ?? 'Internal Server Error');
      return;
    case 'rate_limit':
      throw tooManyRequests(fault.retryAfter ?? fault.code ?? 5);
    case 'server_error':
      throw new BotError(fault.status ?? 500, fault.message ?? 'Internal Server Error');
    case 'error':
      throw new BotError(fault.status ?? fault.code ?? 400, fault.message ?? 'Bad Request: injected error');
    case 'slow_answer':
      // This stand-in does not hold answers back: the fault is used up and the request answered at once.
      return;
  }
}
