import { createAppmsgStandIn } from './appmsg/server.js';
import { createAppmsgBusinessMessagesStandIn } from './appmsg_business_messages/server.js';
import { createBotmsgStandIn } from './botmsg/server.js';
import type { StandIn } from './shared/standin.js';
import { createMailproviderStandIn } from './mailprovider/server.js';
import { createNluserverStandIn } from './nluserver/server.js';
import { createRbmStandIn } from './rbm/server.js';
import { createSmsproviderStandIn } from './smsprovider/server.js';
import { createSocialnetChatStandIn } from './socialnet_chat/server.js';

// Every built stand-in with its fixed port offset (base port + offset) for local use. The server
// derives the same URLs from SANDBOX_PORT_BASE (src/config.ts), so the offsets must not change.

export interface RunnableStandIn {
  standIn: StandIn<unknown>;
  /** Server settings that must match this stand-in's accounts (besides its URL). */
  serverEnv(): Record<string, string>;
}

export interface StandInEntry {
  platform: string;
  portOffset: number;
  /**
   * The server variable that sets this platform's base URL explicitly (it wins over SANDBOX_PORT_BASE).
   * None when the URL is not a server setting but given per channel through the API.
   */
  urlVariable?: string;
  /** For a stand-in without `urlVariable`: where its URL goes instead (printed by `npm run sandbox`). */
  urlUse?: string;
  create(): RunnableStandIn;
}

const plain = (standIn: StandIn<unknown>): RunnableStandIn => ({ standIn, serverEnv: () => ({}) });

export const STAND_INS: StandInEntry[] = [
  {
    platform: 'socialnet_chat',
    portOffset: 0,
    urlVariable: 'SOCIALNET_API_URL',
    create: () => {
      const standIn = createSocialnetChatStandIn();
      // The service verifies the platform's signature on inbound calls with the app secret.
      return { standIn, serverEnv: () => ({ SOCIALNET_APP_ID: standIn.state.app.id, SOCIALNET_APP_SECRET: standIn.state.app.secret }) };
    },
  },
  { platform: 'botmsg', portOffset: 1, urlVariable: 'BOTMSG_API_URL', create: () => plain(createBotmsgStandIn()) },
  { platform: 'smsprovider', portOffset: 2, urlVariable: 'SMSPROVIDER_API_URL', create: () => plain(createSmsproviderStandIn()) },
  { platform: 'appmsg', portOffset: 3, urlVariable: 'APPMSG_API_URL', create: () => plain(createAppmsgStandIn()) },
  { platform: 'rbm', portOffset: 4, urlVariable: 'RBM_API_URL', create: () => plain(createRbmStandIn()) },
  { platform: 'mailprovider', portOffset: 5, urlVariable: 'MAILPROVIDER_API_URL', create: () => plain(createMailproviderStandIn()) },
  {
    platform: 'appmsg_business_messages',
    portOffset: 6,
    urlVariable: 'APPMSG_BUSINESS_API_URL',
    create: () => plain(createAppmsgBusinessMessagesStandIn()),
  },
  {
    platform: 'nluserver',
    portOffset: 7,
    urlUse: "the url of a channel's external NLP integration",
    create: () => {
      const standIn = createNluserverStandIn();
      // The server calls an NLP integration's URL through its address guard: a loopback stand-in must be allowed.
      return { standIn, serverEnv: () => nlpAllowlist(standIn.baseUrl()) };
    },
  },
];

function nlpAllowlist(baseUrl: string | undefined): Record<string, string> {
  return baseUrl === undefined ? {} : { NLP_ALLOWLIST: new URL(baseUrl).host };
}
