import { TrialFailure } from './driver.js';

/** What a stand-in's control call answered (JSON body). */
export interface ControlAnswer {
  status: number;
  body: Record<string, any>;
}

/** Calls one stand-in's control API (`<base>/_sandbox/...`), within a deadline. */
export class ControlApi {
  constructor(
    private readonly base: string,
    private readonly timeoutMs: number,
  ) {}

  async call(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<ControlAnswer> {
    const url = `${this.base.replace(/\/+$/, '')}/_sandbox${path}`;
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? null : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new TrialFailure('failed', `The platform stand-in at ${this.base} did not answer (${(error as Error).message}); is \`npm run sandbox\` running?`);
    }
    const text = await res.text();
    let parsed: unknown = {};
    try {
      parsed = text.length > 0 ? JSON.parse(text) : {};
    } catch {
      parsed = { text };
    }
    return { status: res.status, body: (parsed ?? {}) as Record<string, any> };
  }

  /** A call that must succeed (2xx); otherwise the stand-in's own message is passed on. */
  async expect(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<Record<string, any>> {
    const answer = await this.call(method, path, body);
    if (answer.status < 200 || answer.status >= 300) {
      const message = typeof answer.body.error?.message === 'string' ? answer.body.error.message : `status ${answer.status}`;
      throw new TrialFailure('failed', `The platform stand-in refused ${method} ${path}: ${message}`);
    }
    return answer.body;
  }
}

/**
 * The webhook summary a user action answers with (the stand-in waits for the service's answer):
 * anything but a 2xx from the service is a failed trial.
 */
export function checkDelivered(answer: Record<string, any>): void {
  const hook = answer.webhook as { ok?: boolean; status?: number | null; body?: string; error?: string } | null | undefined;
  if (!hook) throw new TrialFailure('failed', `The platform stand-in did not call the service (${String(answer.webhook_skipped ?? 'no webhook set')}).`);
  if (!hook.ok) {
    const why = hook.error ?? `status ${hook.status ?? 'none'}${hook.body ? `: ${hook.body.slice(0, 200)}` : ''}`;
    throw new TrialFailure('failed', `The service did not accept the platform's call (${why}).`);
  }
}

/** A named contact the platform does not know by an id of its own (e.g. reached by phone number only). */
export const NO_PLATFORM_ID = 'The contact has no platform id to write as; leave the contact out to write as the trial user.';

/** The object of a channel's type in its API view (e.g. `botmsg`), or an empty one. */
export function typeObject(channel: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = channel[key];
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}
