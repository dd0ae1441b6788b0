import type { Base } from './base.js';
import { channelContextOf, type ConnectorRegistry } from '../connectors/connector.js';
import type { StoredFiles } from '../files/stored-files.js';
import type { Metrics } from '../operations/metrics.js';
import type { ChannelCache } from '../domain/messages/channel-cache.js';
import { MessageService } from '../domain/messages/service.js';
import { ContactService } from '../domain/contacts/service.js';
import { ProfileLoader } from '../domain/inbound/profiles.js';

export interface MessagesWiring {
  messages: MessageService;
  contacts: ContactService;
}

interface MessagesDeps {
  connectors: ConnectorRegistry;
  channelCache: ChannelCache;
  storedFiles: StoredFiles;
  removeFiles: (keys: readonly string[]) => Promise<void>;
  metrics: Metrics;
}

/**
 * Contacts (with their platform profile, learnt on the first Get Contact) and Send/Get/List
 * Message. The send path's contact cache drops a contact on `contactChanged` and a channel's
 * contacts on `channelForgotten`. Each `messageStored` is counted and handed to the type's
 * `localDelivery` role, if it has one (service_chat: the contact's open browser tabs).
 */
export function wireMessages(base: Base, deps: MessagesDeps): MessagesWiring {
  const { config, store, ids, clock, outbox, logger, signals } = base;
  const { connectors, channelCache, storedFiles, removeFiles, metrics } = deps;
  const profiles = new ProfileLoader({ store, clock, connectors, files: storedFiles, signals, logger: logger.child({ component: 'profiles' }) });
  const contacts = new ContactService({ store, ids, clock, channels: channelCache, cacheMs: config.channelCacheMs, removeFiles, profiles });
  signals.on('contactChanged', ({ contactId }) => contacts.cache.forgetContact(contactId));
  signals.on('channelForgotten', ({ channelId }) => contacts.cache.forgetChannel(channelId));
  const messages = new MessageService({
    store,
    ids,
    clock,
    outbox,
    connectors,
    channels: channelCache,
    contacts,
    defaultPhoneRegion: config.defaultPhoneRegion,
    sharedModeMessageLimit: config.sharedModeMessageLimit,
    signals,
  });
  signals.on('messageStored', ({ channel }) => metrics.messageAccepted(channel.type, channel.mode));
  signals.on('messageStored', function deliverLocally({ channel, contactId, message }) {
    connectors.role(channel.type, 'localPush')?.pushMessage(channelContextOf(channel), contactId, message);
  });
  return { messages, contacts };
}
