import { STATUS_CODES } from 'node:http';
import type { OutboundRecord } from '../shared/outbound.js';
import { isRecord, type JsonRecord } from '../shared/values.js';
import type { ResolvedBotmsgOptions } from './options.js';
import type { BmBot, BmUpdate, BotmsgState } from './state.js';

// Updates: numbered per bot, filtered by allowed_updates, pushed to the webhook or kept for getUpdates.

export const DEFAULT_EXCLUDED = ['chat_member', 'message_reaction', 'message_reaction_count'];

export type MethodExecutor = (bot: BmBot, method: string, params: Record<string, unknown>) => Promise<unknown>;

export interface PushResult {
  update: BmUpdate;
  record: OutboundRecord | null;
  /** Why no webhook call was made (no webhook: kept for getUpdates; or filtered out). */
  skipped: string | null;
}

function allowed(bot: BmBot, type: string): boolean {
  const list = bot.allowedUpdates;
  if (list === null || list.length === 0) return !DEFAULT_EXCLUDED.includes(type);
  return list.includes(type);
}

function errorMessage(record: OutboundRecord): string {
  if (record.status !== null) return `Wrong response from the webhook: ${record.status} ${STATUS_CODES[record.status] ?? ''}`.trim();
  if (record.error === 'timeout') return 'Read timeout expired';
  if (record.error?.includes('ECONNREFUSED')) return 'Connection refused';
  return record.error ?? 'Connection failed';
}

export class UpdateDispatcher {
  private executor: MethodExecutor | null = null;
  private readonly waiters = new Map<number, Set<() => void>>();

  constructor(
    private readonly state: BotmsgState,
    private readonly options: ResolvedBotmsgOptions,
  ) {}

  setExecutor(executor: MethodExecutor): void {
    this.executor = executor;
  }

  /** Creates the update and, when a webhook is set, delivers it and waits for the answer. */
  async push(bot: BmBot, type: string, payload: JsonRecord): Promise<PushResult> {
    const update: BmUpdate = {
      updateId: bot.nextUpdateId++,
      type,
      body: {},
      createdAt: this.state.clock.now(),
      status: 'pending',
      attempts: 0,
    };
    update.body = { update_id: update.updateId, [type]: payload };
    bot.updates.push(update);
    if (!allowed(bot, type)) {
      update.status = 'dropped';
      return { update, record: null, skipped: `update type ${type} is not in allowed_updates` };
    }
    this.wake(bot.id);
    if (!bot.webhook) return { update, record: null, skipped: 'no webhook set; the update waits for getUpdates' };
    const record = await this.deliver(bot, update);
    return { update, record, skipped: null };
  }

  async deliver(bot: BmBot, update: BmUpdate): Promise<OutboundRecord | null> {
    const hook = bot.webhook;
    if (!hook) return null;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (hook.secretToken !== null) headers[this.options.secretHeaderName.toLowerCase()] = hook.secretToken;
    update.attempts += 1;
    const record = await this.state.webhooks.send({
      method: 'POST',
      url: hook.url,
      kind: update.type,
      body: JSON.stringify(update.body),
      headers,
      timeoutMs: this.options.webhookTimeoutMs,
    });
    if (record.ok) {
      update.status = 'delivered';
      await this.runReplyMethod(bot, record.body);
    } else {
      hook.lastErrorDate = Math.floor(this.state.clock.now() / 1000);
      hook.lastErrorMessage = errorMessage(record);
    }
    return record;
  }

  /** Delivers still-pending updates in order; stops at the first failure like the platform's queue. */
  async retryPending(bot: BmBot): Promise<OutboundRecord[]> {
    const out: OutboundRecord[] = [];
    for (const update of bot.updates.filter((u) => u.status === 'pending')) {
      const record = await this.deliver(bot, update);
      if (!record) break;
      out.push(record);
      if (!record.ok) break;
    }
    return out;
  }

  pending(bot: BmBot): BmUpdate[] {
    return bot.updates.filter((u) => u.status === 'pending');
  }

  /** Resolves when a new update arrives for the bot or after timeoutMs. */
  waitForUpdate(botId: number, timeoutMs: number, sleep: (ms: number) => Promise<void>): Promise<void> {
    return new Promise((resolve) => {
      let done = false;
      const set = this.waiters.get(botId) ?? new Set<() => void>();
      this.waiters.set(botId, set);
      const finish = (): void => {
        if (done) return;
        done = true;
        set.delete(finish);
        resolve();
      };
      set.add(finish);
      void sleep(timeoutMs).then(finish);
    });
  }

  private wake(botId: number): void {
    const set = this.waiters.get(botId);
    if (!set) return;
    for (const fn of [...set]) fn();
  }

  /** A webhook answer may itself be a method call ({"method":"sendMessage",...}); its result is dropped. */
  private async runReplyMethod(bot: BmBot, body: string): Promise<void> {
    if (!this.executor || !body.trim().startsWith('{')) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body) as unknown;
    } catch {
      return;
    }
    if (!isRecord(parsed) || typeof parsed.method !== 'string') return;
    const { method, ...params } = parsed;
    try {
      await this.executor(bot, method, params);
    } catch {
      // The platform does not report errors of methods called in webhook answers.
    }
  }
}
