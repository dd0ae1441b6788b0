import { randomBytes, randomUUID } from 'node:crypto';
import {
  CredentialCache,
  defineConnector,
  type ChannelContext,
  type ChannelInput,
  type FetchedMedia,
  type InboundCall,
  type OutboundMessage,
  type OutboundNotification,
  type PlatformFile,
  type PlatformResult,
  type Recipient,
  type SendReceipt,
  type VerifiedChannel,
} from '../connector.js';
import { fileNameFor, fileNameFromUrl } from '../http.js';
import { RbmApi, statusOf } from './api.js';
import { parseServiceAccountKey, TokenSource } from './auth.js';
import { bareAgentId, EVENTS_ENDPOINT, parseCall } from './inbound.js';
import { AgentLifecycle } from './lifecycle.js';
import type { RbmOptions } from './options.js';
import { platformMessageId, renderMessage } from './render.js';

/**
 * rbm: rich business messaging through an agent, with OAuth tokens from the channel's
 * service-account key. See README.md in this folder for the protocol, the agent life cycle,
 * credentials, failure codes and limits.
 */
const KEY_FIELD = 'rbm.service_account_key';

/**
 * The agent's full name `brands/{brand}/agents/{agent}` as its two ids; a bare id is kept as it
 * is, and one pasted with its agent domain (`<agent>@<agent-domain>`) loses the domain (the API
 * takes the bare id).
 */
function agentIds(value: unknown): { brand_id?: string; agent_id: string } | null {
  if (typeof value !== 'string' || value === '') return null;
  const full = /^brands\/([^/]+)\/agents\/([^/]+)$/.exec(value);
  return full ? { brand_id: full[1]!, agent_id: bareAgentId(full[2]!) } : { agent_id: bareAgentId(value) };
}

export function createRbmConnector(options: RbmOptions) {
  const tokens = new TokenSource({
    tokenUrl: options.tokenUrl,
    timeoutMs: options.timeoutMs,
    cache: new CredentialCache({ clock: options.clock }),
    now: () => options.clock.now(),
  });
  const api = new RbmApi(options, tokens);
  const lifecycle = new AgentLifecycle(api, options);

  /** An agent named by its id alone is looked for among the brands of the partner. */
  async function findBrand(channel: ChannelContext, agentId: string): Promise<PlatformResult<string | null>> {
    const brands = await api.call(channel, 'management', 'GET', '/v1/brands');
    if (!brands.ok) return brands;
    for (const brand of (brands.value.brands as Array<Record<string, unknown>> | undefined) ?? []) {
      const id = String(brand?.name ?? '').split('/')[1];
      if (!id) continue;
      const agent = await api.call(channel, 'management', 'GET', `/v1/brands/${id}/agents/${agentId}`);
      if (agent.ok) return { ok: true, value: id };
      if (agent.retryable) return agent;
    }
    return { ok: true, value: null };
  }

  const verifier = {
    /**
     * The key is read and exchanged for tokens of both APIs (refused: 422 naming
     * `rbm.service_account_key`; the platform down: 502); an agent the partner names
     * (`rbm.agent_id`) is read with its state. A channel without a key exists only in the service.
     * The channel's client token, which signs the platform's calls, is made here unless given.
     */
    async verifyChannel(input: ChannelInput): Promise<PlatformResult<VerifiedChannel>> {
      const keyText = input.secrets.service_account_key;
      if (keyText === undefined) return { ok: true, value: { config: {}, secrets: {} } };
      const key = parseServiceAccountKey(keyText);
      if (typeof key === 'string') return { ok: false, retryable: false, code: 'bad_key', message: key, field: KEY_FIELD };
      const config: Record<string, unknown> = { client_email: key.clientEmail };
      const secrets: Record<string, string> = {};
      if (!input.secrets.client_token) secrets.client_token = randomBytes(24).toString('base64url');
      const channel: ChannelContext = {
        id: input.id ?? 'new',
        type: input.type,
        mode: input.mode ?? 'production',
        config: input.config,
        secrets: input.secrets,
      };
      for (const scope of [options.messagingScope, options.managementScope]) {
        const token = await tokens.token(channel.id, keyText, scope);
        if (!token.ok) return token.retryable ? token : { ...token, field: KEY_FIELD };
      }
      const named = agentIds(input.config.agent_id);
      if (named === null) return { ok: true, value: { config, secrets } };
      let brand = named.brand_id ?? (typeof input.config.brand_id === 'string' ? input.config.brand_id : undefined);
      if (brand === undefined) {
        const found = await findBrand(channel, named.agent_id);
        if (!found.ok) return found.retryable ? found : { ...found, field: 'rbm.agent_id' };
        if (found.value === null)
          return { ok: false, retryable: false, code: '404', message: `The partner has no agent ${named.agent_id}.`, field: 'rbm.agent_id' };
        brand = found.value;
      }
      Object.assign(config, { agent_id: named.agent_id, brand_id: brand, verification_requested: true });
      const state = await lifecycle.readState({ ...channel, config: { ...channel.config, ...config } });
      if (!state.ok) return state.retryable ? state : { ...state, field: 'rbm.agent_id', message: `The platform refused the agent: ${state.message}` };
      Object.assign(config, state.value.config, { agent_state: state.value.state });
      if (state.value.reason !== undefined) config.agent_state_reason = state.value.reason;
      return { ok: true, value: { config, secrets } };
    },
  };

  const sender = {
    async send(channel: ChannelContext, recipient: Recipient, message: OutboundMessage): Promise<PlatformResult<SendReceipt>> {
      const agentId = typeof channel.config.agent_id === 'string' ? channel.config.agent_id : '';
      if (agentId === '') return { ok: false, retryable: false, code: 'no_agent', message: 'The channel has no agent on the platform.' };
      const phone = recipient.phoneNumber;
      if (!phone) return { ok: false, retryable: false, code: 'no_recipient', message: 'The contact has no phone number.' };
      const body = renderMessage(message);
      if (!body.ok) return body;
      const id = platformMessageId(message.id);
      const sent = await api.call(
        channel,
        'messaging',
        'POST',
        `/v1/phones/${encodeURIComponent(phone)}/agentMessages?messageId=${id}&agentId=${encodeURIComponent(agentId)}`,
        body.value,
      );
      // A message id the platform has already: it took the message on an earlier try.
      if (!sent.ok && statusOf(sent) !== 'ALREADY_EXISTS') return sent;
      return { ok: true, value: { externalIds: [id] } };
    },
  };

  const notifications = {
    /** `typing_on` as IS_TYPING; `messages_read` as READ of the contact's latest message (nothing to mark without one). */
    async sendNotification(channel: ChannelContext, recipient: Recipient, notification: OutboundNotification): Promise<PlatformResult<null>> {
      const agentId = typeof channel.config.agent_id === 'string' ? channel.config.agent_id : '';
      if (agentId === '') return { ok: false, retryable: false, code: 'no_agent', message: 'The channel has no agent on the platform.' };
      if (!recipient.phoneNumber) return { ok: false, retryable: false, code: 'no_recipient', message: 'The contact has no phone number.' };
      let event: Record<string, unknown>;
      if (notification.type === 'typing_on') event = { eventType: 'IS_TYPING' };
      else if (notification.type === 'messages_read') {
        if (notification.lastReceivedExternalId === undefined) return { ok: true, value: null };
        event = { eventType: 'READ', messageId: notification.lastReceivedExternalId };
      } else return { ok: false, retryable: false, code: 'unsupported', message: `rbm has no ${notification.type} notification.` };
      const path = `/v1/phones/${encodeURIComponent(recipient.phoneNumber)}/agentEvents?eventId=${randomUUID()}&agentId=${encodeURIComponent(agentId)}`;
      const sent = await api.call(channel, 'messaging', 'POST', path, event);
      return sent.ok ? { ok: true, value: null } : sent;
    },
  };

  const channelInbound = {
    endpoints: [{ name: EVENTS_ENDPOINT, methods: ['POST'] }] as const,
    parse: (call: InboundCall, channel: ChannelContext) => parseCall(call, channel, options.signatureHeaderName),
  };

  const media = {
    /** A user's file at the platform's URL, through the address guard and the size cap. */
    async fetchMedia(_channel: ChannelContext, file: PlatformFile): Promise<PlatformResult<FetchedMedia>> {
      const got = await options.media.download(file.ref, options.timeoutMs, options.maxMediaBytes);
      if (!got.ok) return got;
      const mimeType = file.mimeType ?? got.value.contentType;
      return { ok: true, value: { bytes: got.value.bytes, mimeType, name: file.name ?? fileNameFromUrl(file.ref, fileNameFor('file', mimeType)) } };
    },
  };

  const channelState = { readState: (channel: ChannelContext) => lifecycle.readState(channel) };
  const channelStateRequests = { requestState: (channel: ChannelContext, wanted: string) => lifecycle.requestState(channel, wanted) };
  const testers = {
    invite: (channel: ChannelContext, phoneNumber: string) => lifecycle.invite(channel, phoneNumber),
    list: (channel: ChannelContext) => lifecycle.list(channel),
    remove: (channel: ChannelContext, phoneNumber: string) => lifecycle.remove(channel, phoneNumber),
  };

  return defineConnector('rbm', { verifier, sender, notifications, channelInbound, media, channelState, channelStateRequests, testers });
}
