import { createAppmsgStandIn } from './appmsg/server.js';
import { createAppmsgBusinessMessagesStandIn } from './appmsg_business_messages/server.js';
import { createBotmsgStandIn } from './botmsg/server.js';
import type { StandIn } from './shared/standin.js';
import { createMailproviderStandIn } from './mailprovider/server.js';
import { createNluserverStandIn } from './nluserver/server.js';
import { createRbmStandIn } from './rbm/server.js';
import { createSmsproviderStandIn } from './smsprovider/server.js';
import { createSocialnetChatStandIn } from './socialnet_chat/server.js';

import { TYPE_MODULES } from '../src/channel-types/modules.js';

// Every built stand-in with its fixed port offset (base port + offset) for local use. A channel
// type's stand-in takes its port and server variable from the type's module
// (src/channel-types/modules.ts), so the server derives the same URLs from SANDBOX_PORT_BASE;
// here it is only made. The offsets must not change.

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

/** How each stand-in is made, by its name (a type module's `standIn.name`). */
const MAKERS: Readonly<Record<string, () => RunnableStandIn>> = {
  socialnet_chat: () => {
    const standIn = createSocialnetChatStandIn();
    // The service verifies the platform's signature on inbound calls with the app secret.
    return { standIn, serverEnv: () => ({ SOCIALNET_APP_ID: standIn.state.app.id, SOCIALNET_APP_SECRET: standIn.state.app.secret }) };
  },
  botmsg: () => plain(createBotmsgStandIn()),
  smsprovider: () => plain(createSmsproviderStandIn()),
  appmsg: () => plain(createAppmsgStandIn()),
  rbm: () => plain(createRbmStandIn()),
  mailprovider: () => plain(createMailproviderStandIn()),
  appmsg_business_messages: () => plain(createAppmsgBusinessMessagesStandIn()),
};

function maker(name: string): () => RunnableStandIn {
  const make = MAKERS[name];
  if (!make) throw new Error(`no stand-in is made under the name ${name} (sandbox/registry.ts)`);
  return make;
}

/** The stand-ins of the channel types (from their modules), then the tools', in port order. */
export const STAND_INS: StandInEntry[] = [
  ...TYPE_MODULES.flatMap((m) =>
    m.standIn ? [{ platform: m.standIn.name, portOffset: m.standIn.portOffset, urlVariable: m.standIn.urlVariable, create: maker(m.standIn.name) }] : [],
  ),
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
].sort((a, b) => a.portOffset - b.portOffset);

function nlpAllowlist(baseUrl: string | undefined): Record<string, string> {
  return baseUrl === undefined ? {} : { NLP_ALLOWLIST: new URL(baseUrl).host };
}
