import { createNluserverStandIn } from './nluserver/server.js';

import type { RunnableStandIn } from '../src/channel-types/module.js';
import { TYPE_MODULES } from '../src/channel-types/modules.js';

// Every built stand-in with its fixed port offset (base port + offset) for local use. A channel
// type's stand-in is named by the type's module (src/channel-types/modules.ts): its port, its
// server variable and its maker, so the server derives the same URLs from SANDBOX_PORT_BASE and a
// new type adds nothing here. The offsets must not change.

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

/** The channel types' stand-ins, each maker loaded from its module (a dynamic import, so awaited here once). */
const TYPE_STAND_INS: StandInEntry[] = await Promise.all(
  TYPE_MODULES.flatMap((m) => (m.standIn ? [m.standIn] : [])).map(async (s) => ({
    platform: s.name,
    portOffset: s.portOffset,
    urlVariable: s.urlVariable,
    create: await s.load(),
  })),
);

/** The stand-ins of the channel types, then the tools', in port order. */
export const STAND_INS: StandInEntry[] = [
  ...TYPE_STAND_INS,
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
