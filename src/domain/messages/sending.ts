import { ApiError } from '../../lib/errors.js';
import type { ConnectorRegistry } from '../../connectors/connector.js';
import { capabilitiesOf, definitionOf } from '../../channel-types/index.js';
import type { Channel } from '../channels/view.js';
import type { ContactAddress } from './addressing.js';

/**
 * What a Send Message does on a channel now:
 * - `test`: mode test (mobile, rbm, appmsg_business_messages): stored and echoed, never sent;
 * - `queued`: asynchronous types in production (and shared mode) whose connector sends: stored
 *   with a send job, answered at once;
 * - `direct`: synchronous types with a connector: the platform is called inside the request
 *   (service_chat's connector "sends" by storing: the chat server pushes it to the browser);
 * - `unavailable`: types whose connector does not send yet (no `sender` role): 502 at once,
 *   nothing stored, no job queued that nothing would run.
 */
export type SendingPath = 'test' | 'queued' | 'direct' | 'unavailable';

export function sendingPath(channel: Pick<Channel, 'type' | 'mode'>, connectors: ConnectorRegistry): SendingPath {
  if (channel.mode === 'test') return 'test';
  if (!connectors.role(channel.type, 'sender')) return 'unavailable';
  return capabilitiesOf(channel.type).delivery === 'async' ? 'queued' : 'direct';
}

export function unavailableError(channel: Pick<Channel, 'type'>): ApiError {
  return ApiError.of(
    'platform_error',
    `Messages cannot be sent through ${channel.type} channels yet: the ${channel.type} platform connector is not available in this service. Nothing was sent or stored.`,
  );
}

/**
 * Rules of the platform-side state of a channel in production (e.g. an agent not launched yet
 * sends only to test numbers): the type's definition checks them.
 */
export function checkModeRules(channel: Channel, address: ContactAddress): void {
  if (channel.mode !== 'production') return;
  definitionOf(channel.type).send.checkProduction?.(channel, address.form === 'phone_number' ? address.phoneNumber : null);
}

export function sharedLimitError(channel: Pick<Channel, 'id'>, limit: number): ApiError {
  return ApiError.invalid(
    'channel.id',
    channel.id,
    `The channel has sent the ${limit} messages its shared mode allows; switch it to production mode to send more.`,
  );
}
