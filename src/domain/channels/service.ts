import type { Store } from '../../store/store.js';
import type { ChannelRow } from '../../store/repos/channels.js';
import type { IdGenerator } from '../../lib/ids.js';
import type { Clock } from '../../lib/clock.js';
import { randomAlphanumeric, type SecretBox } from '../../lib/crypto.js';
import { ApiError, say } from '../../lib/errors.js';
import { assertValid } from '../../lib/validation.js';
import { isPlainObject } from '../../lib/json.js';
import { CHANNEL_TYPES, isChannelType, type ChannelMode, type ChannelType } from '../../schemas/channel-types.js';
import { definitionOf } from '../../channel-types/index.js';
import { channelContextOf, type ConnectorRegistry } from '../../connectors/connector.js';
import { CREATE_SCHEMAS, UPDATE_SCHEMAS } from './schemas.js';
import { decodeChannel, type Channel } from './view.js';
import { checkWebhookUrl } from './webhook-url.js';
import type { DomainSignals } from '../signals.js';

export interface ChannelServiceDeps {
  store: Store;
  ids: IdGenerator;
  clock: Clock;
  box: SecretBox;
  connectors: ConnectorRegistry;
  /** Hosts the webhook address guard lets through although they are private (WEBHOOK_ALLOWLIST). */
  webhookAllowlist: readonly string[];
  /** Removes stored file bytes (the file store); the rows go with the channel. */
  removeFiles?: (storageKeys: readonly string[]) => Promise<void>;
  /** Told `channelSaved` after a create or an API update, `channelChanged` after any change or delete. */
  signals: DomainSignals;
}

const WEBHOOK_SECRET_LENGTH = 30;

/** A credential as kept: text as it is, a JSON object (a service-account key) as its JSON. */
function secretText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function parseSsl(value: unknown): boolean {
  return value === true || value === 'true';
}

export class ChannelService {
  constructor(private readonly deps: ChannelServiceDeps) {}

  private requireType(body: Record<string, unknown>): ChannelType {
    if (!('type' in body)) throw ApiError.invalid('type', null, say.missing('type'));
    const type = body.type;
    if (type === null) throw ApiError.invalid('type', null, say.cannotBeNull('type'));
    if (!isChannelType(type)) throw ApiError.invalid('type', type, say.notAllowedValue('type', type, CHANNEL_TYPES));
    return type;
  }

  private checkMode(type: ChannelType, mode: unknown): string {
    const allowed = definitionOf(type).modes;
    if (typeof mode !== 'string' || !allowed.includes(mode as never)) throw ApiError.invalid('mode', mode, say.notAllowedValue('mode', mode, allowed));
    return mode;
  }

  /** Splits a type object from a request into public fields and credentials. */
  private split(type: ChannelType, object: Record<string, unknown>): { config: Record<string, unknown>; secrets: Record<string, string> } {
    const config: Record<string, unknown> = {};
    const secrets: Record<string, string> = {};
    for (const [k, v] of Object.entries(object)) {
      if (definitionOf(type).input.secretFields.includes(k)) secrets[k] = secretText(v);
      else config[k] = v;
    }
    return { config, secrets };
  }

  /** Credentials are checked with the platform before anything is saved. */
  private async verify(id: number, type: ChannelType, config: Record<string, unknown>, secrets: Record<string, string>, mode: string) {
    const verifier = this.deps.connectors.role(type, 'verifier');
    if (!verifier) return { config, secrets };
    // The id goes along so a platform can be told the channel's callback URL (botmsg webhook).
    const result = await verifier.verifyChannel({ id: String(id), type, mode: mode as ChannelMode, config, secrets });
    if (result.ok) return { config: { ...config, ...result.value.config }, secrets: { ...secrets, ...result.value.secrets } };
    if (result.retryable) throw ApiError.of('platform_error', `The platform could not be reached to verify the channel: ${result.message}`);
    const key = definitionOf(type).input.key ?? 'channel';
    throw ApiError.invalid(result.field ?? `${key}.access_token`, null, `The platform refused the credentials: ${result.message}`);
  }

  /**
   * A platform that checks the channel's inbound URL by calling it is told the URL once the
   * channel is saved (it must exist to answer); a failure undoes the save and answers like a
   * refused or unreachable verification.
   */
  private async register(channel: Channel, previous: Channel | null, undo: () => Promise<void>): Promise<void> {
    const registrar = this.deps.connectors.role(channel.type, 'registrar');
    if (!registrar) return;
    const result = await registrar.registerChannel(channelContextOf(channel), previous ? channelContextOf(previous) : null);
    if (result.ok) return;
    await undo();
    if (result.retryable) throw ApiError.of('platform_error', `The platform could not be reached to register the channel: ${result.message}`);
    const key = definitionOf(channel.type).input.key ?? 'channel';
    throw ApiError.invalid(result.field ?? `${key}.access_token`, null, `The platform refused the channel's registration: ${result.message}`);
  }

  private newWebhook(input: { url: string; ssl_verification?: unknown }) {
    const url = checkWebhookUrl(input.url, this.deps.webhookAllowlist);
    return {
      webhook_id: this.deps.ids.nextNumber(),
      webhook_url: url,
      webhook_secret: this.deps.box.encrypt(randomAlphanumeric(WEBHOOK_SECRET_LENGTH)),
      webhook_ssl_verification: input.ssl_verification === undefined ? 1 : parseSsl(input.ssl_verification) ? 1 : 0,
    };
  }

  async create(accountId: number, body: Record<string, unknown>): Promise<Channel> {
    const type = this.requireType(body);
    assertValid(CREATE_SCHEMAS[type], body);
    const mode = body.mode === undefined ? 'production' : this.checkMode(type, body.mode);
    const { input } = definitionOf(type);
    const object = input.key && isPlainObject(body[input.key]) ? (body[input.key] as Record<string, unknown>) : {};
    let { config, secrets } = this.split(type, object);
    input.prepareCreate?.(config, body);
    const id = this.deps.ids.nextNumber();
    ({ config, secrets } = await this.verify(id, type, config, secrets, mode));
    const now = this.deps.clock.now();
    const webhook = isPlainObject(body.webhook) ? this.newWebhook(body.webhook as { url: string; ssl_verification?: unknown }) : null;
    const row: ChannelRow = {
      id,
      account_id: accountId,
      type,
      name: String(body.name),
      mode,
      config: JSON.stringify(config),
      secrets: Object.keys(secrets).length > 0 ? this.deps.box.encryptJson(secrets) : null,
      webhook_id: webhook?.webhook_id ?? null,
      webhook_url: webhook?.webhook_url ?? null,
      webhook_secret: webhook?.webhook_secret ?? null,
      webhook_ssl_verification: webhook?.webhook_ssl_verification ?? 1,
      settings: '{}',
      created_at: now,
      updated_at: now,
    };
    await this.deps.store.channels.insert(row);
    const created = decodeChannel(row, this.deps.box);
    await this.register(created, null, () => this.deps.store.channels.delete(accountId, id).then(() => undefined));
    this.deps.signals.emit('channelSaved', { channel: created, previous: null });
    return created;
  }

  async get(accountId: number, id: number): Promise<Channel> {
    const row = await this.deps.store.channels.find(accountId, id);
    if (!row) throw ApiError.notFound('Channel');
    return decodeChannel(row, this.deps.box);
  }

  async list(accountId: number, max: number, offset: number): Promise<{ channels: Channel[]; total: number }> {
    const { rows, total } = await this.deps.store.channels.list(accountId, max, offset);
    return { channels: rows.map((r) => decodeChannel(r, this.deps.box)), total };
  }

  async update(accountId: number, id: number, body: Record<string, unknown>): Promise<Channel> {
    const row = await this.deps.store.channels.find(accountId, id);
    if (!row) throw ApiError.notFound('Channel');
    const current = decodeChannel(row, this.deps.box);
    const type = current.type;
    assertValid(UPDATE_SCHEMAS[type], body);
    if ('type' in body && body.type !== type) throw ApiError.invalid('type', body.type ?? null, `Property 'type' cannot be changed.`);
    if ('name' in body && body.name === null) throw ApiError.invalid('name', null, say.cannotBeNull('name'));
    if ('mode' in body && body.mode === null) throw ApiError.invalid('mode', null, say.cannotBeNull('mode'));

    const changes: Partial<ChannelRow> = { updated_at: this.deps.clock.now() };
    if (typeof body.name === 'string') changes.name = body.name;
    if (body.mode !== undefined) changes.mode = this.checkMode(type, body.mode);

    const { input: typeInput, update: rules } = definitionOf(type);
    const key = typeInput.key;
    const patch = key ? body[key] : undefined;
    let config = { ...current.config };
    let secrets = { ...current.secrets };
    let credentialsChanged = false;
    if (key && patch === null) throw ApiError.invalid(key, null, say.cannotBeNull(key));
    if (isPlainObject(patch)) {
      for (const [k, v] of Object.entries(patch)) {
        if (v === null) throw ApiError.invalid(`${key}.${k}`, null, say.cannotBeNull(`${key}.${k}`));
        if (rules.ownKeys.includes(k)) continue;
        if (typeInput.secretFields.includes(k)) {
          secrets[k] = secretText(v);
          credentialsChanged = true;
        } else {
          config[k] = isPlainObject(v) && isPlainObject(config[k]) ? { ...(config[k] as object), ...v } : v;
          if (rules.reverifyKeys.includes(k)) credentialsChanged = true;
        }
      }
    }
    rules.apply?.(config, isPlainObject(patch) ? patch : undefined, body);
    // A channel leaving test mode is checked too: a platform may skip the check in test mode.
    const mode = changes.mode ?? current.mode;
    if (credentialsChanged || (current.mode === 'test' && mode !== 'test')) ({ config, secrets } = await this.verify(id, type, config, secrets, mode));
    changes.config = JSON.stringify(config);
    changes.secrets = Object.keys(secrets).length > 0 ? this.deps.box.encryptJson(secrets) : null;

    if (body.webhook === null) {
      Object.assign(changes, { webhook_id: null, webhook_url: null, webhook_secret: null, webhook_ssl_verification: 1 });
    } else if (isPlainObject(body.webhook)) {
      const input = body.webhook as { url?: string; ssl_verification?: unknown };
      if ('url' in input && input.url === null) throw ApiError.invalid('webhook.url', null, say.cannotBeNull('webhook.url'));
      if (current.webhook) {
        // A new url keeps the webhook's id and secret.
        if (input.url !== undefined) changes.webhook_url = checkWebhookUrl(input.url, this.deps.webhookAllowlist);
        if (input.ssl_verification !== undefined) changes.webhook_ssl_verification = parseSsl(input.ssl_verification) ? 1 : 0;
      } else {
        if (input.url === undefined) throw ApiError.invalid('webhook.url', null, say.missing('webhook.url'));
        Object.assign(changes, this.newWebhook({ url: input.url, ssl_verification: input.ssl_verification }));
      }
    }
    if (body.webhook === null && current.webhook) {
      // Removing the webhook drops its pending deliveries (a changed URL keeps them: the worker
      // reads the URL at send time).
      await this.deps.store.transaction(async (tx) => {
        await tx.channels.update(accountId, id, changes);
        await tx.deliveries.dropPending(accountId, id, changes.updated_at ?? this.deps.clock.now());
      });
    } else {
      await this.deps.store.channels.update(accountId, id, changes);
    }
    this.changed(current.id);
    const updated = decodeChannel({ ...row, ...changes }, this.deps.box);
    if (credentialsChanged) {
      const { id: _id, account_id: _account, ...before } = row;
      await this.register(updated, current, async () => {
        await this.deps.store.channels.update(accountId, id, before);
        this.changed(current.id);
      });
    }
    this.deps.signals.emit('channelSaved', { channel: updated, previous: current });
    return updated;
  }

  /** Gives the channel's webhook a new random secret (the next tries sign with it); 422 without a webhook. */
  async rotateWebhookSecret(accountId: number, id: number): Promise<Channel> {
    const row = await this.deps.store.channels.find(accountId, id);
    if (!row) throw ApiError.notFound('Channel');
    if (row.webhook_id === null) throw ApiError.of('validation', 'The channel has no webhook.');
    const changes = { webhook_secret: this.deps.box.encrypt(randomAlphanumeric(WEBHOOK_SECRET_LENGTH)), updated_at: this.deps.clock.now() };
    await this.deps.store.channels.update(accountId, id, changes);
    this.changed(String(id));
    return decodeChannel({ ...row, ...changes }, this.deps.box);
  }

  /**
   * Deletes the channel with everything of it (contacts, messages, events, deliveries, file rows:
   * foreign keys cascade) and, after the commit, the stored bytes of its files.
   */
  async delete(accountId: number, id: number): Promise<void> {
    const before = await this.deps.store.channels.find(accountId, id);
    const storageKeys = await this.deps.store.transaction(async (tx) => {
      const keys = await tx.files.storageKeysForChannel(accountId, id);
      if (!(await tx.channels.delete(accountId, id))) throw ApiError.notFound('Channel');
      return keys;
    });
    this.changed(String(id));
    if (storageKeys.length > 0 && this.deps.removeFiles) await this.deps.removeFiles(storageKeys);
    // What the channel registered on its platform (a mail route, event webhooks) goes too, as far as the platform answers.
    const release = before ? this.deps.connectors.role(before.type as ChannelType, 'release') : undefined;
    if (before && release) await release.releaseChannel(channelContextOf(decodeChannel(before, this.deps.box))).catch(() => undefined);
  }

  private changed(channelId: string): void {
    this.deps.signals.emit('channelChanged', { channelId });
  }
}
