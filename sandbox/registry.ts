import { createAppmsgStandIn } from './appmsg/server.js';
import { createAppmsgBusinessMessagesStandIn } from './appmsg_business_messages/server.js';
import { createBotmsgStandIn } from './botmsg/server.js';
import type { StandIn } from './shared/standin.js';
import { createMailproviderStandIn } from './mailprovider/server.js';
import { createRbmStandIn } from './rbm/server.js';
import { createSmsproviderStandIn } from './smsprovider/server.js';
import { createSocialnetChatStandIn } from './socialnet_chat/server.js';

// Every built stand-in with its fixed port offset (base port + offset) for local use.

export interface StandInEntry {
  platform: string;
  portOffset: number;
  create(): StandIn<unknown>;
}

export const STAND_INS: StandInEntry[] = [
  { platform: 'socialnet_chat', portOffset: 0, create: () => createSocialnetChatStandIn() },
  { platform: 'botmsg', portOffset: 1, create: () => createBotmsgStandIn() },
  { platform: 'smsprovider', portOffset: 2, create: () => createSmsproviderStandIn() },
  { platform: 'appmsg', portOffset: 3, create: () => createAppmsgStandIn() },
  { platform: 'rbm', portOffset: 4, create: () => createRbmStandIn() },
  { platform: 'mailprovider', portOffset: 5, create: () => createMailproviderStandIn() },
  { platform: 'appmsg_business_messages', portOffset: 6, create: () => createAppmsgBusinessMessagesStandIn() },
];
