import { ApiError } from '../../lib/errors.js';
import { CAPABILITIES } from '../../connectors/capabilities.js';
import type { ConnectorRegistry } from '../../connectors/connector.js';
import type { Channel } from '../channels/view.js';
import type { ContactAddress } from './addressing.js';

/**
 * What a Send Message does on a channel now:
 * - `test`: mode test (mobile, rbm, appmsg_business_messages): stored and echoed, never sent;
 * - `queued`: asynchronous types in production: stored with a send job, answered at once;
 * - `direct`: synchronous types with a connector: the platform is called inside the request
 *   (service_chat's connector "sends" by storing: the chat server pushes it to the browser);
 * - `unavailable`: synchronous types whose connector is not built: 502, nothing stored.
 */
export type SendingPath = 'test' | 'queued' | 'direct' | 'unavailable';

export function sendingPath(channel: Pick<Channel, 'type' | 'mode'>, connectors: ConnectorRegistry): SendingPath {
  if (channel.mode === 'test') return 'test';
  if (CAPABILITIES[channel.type].delivery === 'async') return 'queued';
  return connectors.role(channel.type, 'sender') ? 'direct' : 'unavailable';
}

export function unavailableError(channel: Pick<Channel, 'type'>): ApiError {
  return ApiError.of(
    'platform_error',
    `Messages cannot be sent through ${channel.type} channels yet: the ${channel.type} platform connector is not available in this service. Nothing was sent or stored.`,
  );
}

/** Test numbers of an rbm channel whose agent is not launched (E.164 strings in the channel's config). */
function testNumbers(channel: Channel): string[] {
  const list = channel.config.test_numbers;
  return Array.isArray(list) ? list.filter((n): n is string => typeof n === 'string') : [];
}

/**
 * rbm in production before the agent is launched (contract.md §3): a `created` agent (or one
 * whose launch is requested) sends only to the channel's test numbers; `new` and
 * `create_requested` agents cannot send in production at all.
 */
export function checkModeRules(channel: Channel, address: ContactAddress): void {
  if (channel.type !== 'rbm' || channel.mode !== 'production') return;
  const state = typeof channel.config.agent_state === 'string' ? channel.config.agent_state : 'new';
  if (state === 'launched') return;
  if (state === 'new' || state === 'create_requested') {
    throw ApiError.invalid(
      'channel.id',
      channel.id,
      `The rbm agent of this channel is in state '${state}' and cannot send in production; send through a channel in test mode until the agent is created.`,
    );
  }
  if (address.form === 'phone_number' && !testNumbers(channel).includes(address.phoneNumber)) {
    throw ApiError.invalid(
      'contact.phone_number',
      address.phoneNumber,
      `The rbm agent of this channel is not launched yet (state '${state}'): in production it sends only to the channel's test numbers.`,
    );
  }
}

export function sharedLimitError(channel: Pick<Channel, 'id'>, limit: number): ApiError {
  return ApiError.invalid(
    'channel.id',
    channel.id,
    `The channel has sent the ${limit} messages its shared mode allows; switch it to production mode to send more.`,
  );
}
