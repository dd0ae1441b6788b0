import type { Store } from '../../store/store.js';
import type { Clock } from '../../lib/clock.js';
import type { SecretBox } from '../../lib/crypto.js';
import { parseId } from '../../lib/ids.js';
import { ApiError, say } from '../../lib/errors.js';
import { capabilitiesOf } from '../../channel-types/index.js';
import { channelContextOf, type ConnectorRegistry, type OutboundNotification } from '../../connectors/connector.js';
import { decodeChannel, type Channel } from '../channels/view.js';
import { CUSTOM_PAYLOAD_MAX_CHARS, type NotificationResponse, type SendNotificationBody } from './schemas.js';

export interface NotificationServiceDeps {
  store: Store;
  clock: Clock;
  box: SecretBox;
  connectors: ConnectorRegistry;
}

/**
 * Send Notification: typing indicators, read receipts and (web chat only) custom payloads, sent
 * to a contact. A type the channel's platform lacks is refused (422). The type's connector sends
 * it to the platform, or delivers it to the contact's open connections when the service itself
 * is the platform. `messages_read` also marks the contact's messages read.
 */
export class NotificationService {
  constructor(private readonly deps: NotificationServiceDeps) {}

  private async channelOf(accountId: number, raw: string): Promise<Channel> {
    const id = parseId(raw);
    const row = id === null ? undefined : await this.deps.store.channels.find(accountId, id);
    if (!row) throw ApiError.invalid('channel.id', raw, `Channel '${raw}' does not exist.`);
    return decodeChannel(row, this.deps.box);
  }

  async send(accountId: number, body: SendNotificationBody): Promise<NotificationResponse> {
    const { store, clock, connectors } = this.deps;
    const channel = await this.channelOf(accountId, body.channel.id);
    const type = body.type;
    if (!capabilitiesOf(channel.type).notifications.includes(type)) {
      throw ApiError.invalid('type', type, `Notification type '${type}' is not supported by ${channel.type} channels.`);
    }
    if (type === 'custom') {
      if (body.payload === undefined) throw ApiError.invalid('payload', null, say.missing('payload'));
      if (JSON.stringify(body.payload).length > CUSTOM_PAYLOAD_MAX_CHARS)
        throw ApiError.invalid('payload', null, `Property 'payload' must be at most ${CUSTOM_PAYLOAD_MAX_CHARS} characters of JSON.`);
    } else if (body.payload !== undefined) {
      throw ApiError.invalid('payload', body.payload, `Property 'payload' is supported with type 'custom' only.`);
    }
    const contactId = parseId(body.contact.id);
    const contact = contactId === null ? undefined : await store.contacts.find(accountId, Number(channel.id), contactId);
    if (!contact) throw ApiError.invalid('contact.id', body.contact.id, `Contact '${body.contact.id}' does not exist in channel '${channel.id}'.`);

    // A platform is told first, and the read marks are stored only once it accepted; a type whose
    // platform is the service itself (local delivery) pushes after the marks committed, so a
    // browser told of them finds them.
    const sender = connectors.role(channel.type, 'notifications');
    const local = connectors.role(channel.type, 'localPush');
    if (!sender && !local) {
      throw ApiError.of('platform_error', `Notifications cannot be sent to ${channel.type} channels: this server has no platform connection for them yet.`);
    }
    const now = clock.now();
    const context = channelContextOf(channel);
    const notification: OutboundNotification = { type, at: now, ...(type === 'custom' ? { payload: body.payload } : {}) };
    if (type === 'messages_read' && sender) {
      // Platforms that mark a message read by its id are given the contact's latest one.
      const latest = await store.conversation.lastReceived(accountId, contact.id);
      if (latest?.external_id) notification.lastReceivedExternalId = latest.external_id;
    }
    if (sender) {
      const result = await sender.sendNotification(
        context,
        {
          id: String(contact.id),
          externalId: contact.external_id,
          phoneNumber: contact.phone_number,
          userRef: contact.user_ref,
          email: contact.email,
          name: contact.name,
        },
        notification,
      );
      if (!result.ok) throw ApiError.of('platform_error', `The platform refused the notification: ${result.message}`);
    }
    if (type === 'messages_read') await store.transaction((tx) => tx.chat.markRead(accountId, contact.id, 'received', now, now));
    local?.pushNotification(context, String(contact.id), notification);

    const response: NotificationResponse = { channel: { id: channel.id, type: channel.type }, contact: { id: String(contact.id) }, type };
    if (type === 'custom') response.payload = body.payload;
    return response;
  }
}
