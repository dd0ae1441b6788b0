import { defineTypeModule } from '../../channel-types/module.js';
import { email } from './definition.js';
import { mailproviderSettings, STAND_IN_PORT_OFFSET } from './config.js';
import { createEmailConnector } from './connector.js';

export const emailModule = defineTypeModule({
  type: 'email',
  definition: email,
  settings: mailproviderSettings,
  connector: (s, context) =>
    createEmailConnector({ ...s, timeoutMs: context.timeoutMs, inboundUrl: context.inboundUrl, media: context.media, now: context.now }),
  // Mail events: `reason` or `reason/SMTP code` of a permanent failure (inbound.ts).
  failureCodes: {
    'bounce/550': 3, // no such mailbox
    'bounce/551': 3,
    'bounce/553': 3,
    'suppress-bounce': 2, // the provider refuses an address that bounced, unsubscribed or complained before
    'suppress-unsubscribe': 2,
    'suppress-complaint': 2,
    complained: 2,
  },
  standIn: {
    name: 'mailprovider',
    portOffset: STAND_IN_PORT_OFFSET,
    urlVariable: 'MAILPROVIDER_API_URL',
    load: () => import('../../../sandbox/mailprovider/server.js').then(({ createMailproviderStandIn }) => () => ({ standIn: createMailproviderStandIn() })),
  },
});
