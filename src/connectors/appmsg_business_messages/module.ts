import { defineTypeModule } from '../../channel-types/module.js';
import { appmsgBusinessMessages } from './definition.js';
import { appmsgBusinessSettings, STAND_IN_PORT_OFFSET } from './config.js';
import { createAppmsgBusinessConnector } from './connector.js';

export const appmsgBusinessMessagesModule = defineTypeModule({
  type: 'appmsg_business_messages',
  definition: appmsgBusinessMessages,
  settings: appmsgBusinessSettings,
  connector: (s, context) => createAppmsgBusinessConnector({ ...s, timeoutMs: context.timeoutMs, mediaAllowlist: context.mediaAllowlist }),
  // The partner API's `status`: 8 the user blocked the sender, 9 the number is not on the app; a
  // message whose time to live ran out before it could be sent.
  failureCodes: {
    '8': 2,
    '9': 3,
    ttl_elapsed: 4,
  },
  standIn: {
    name: 'appmsg_business_messages',
    portOffset: STAND_IN_PORT_OFFSET,
    urlVariable: 'APPMSG_BUSINESS_API_URL',
    load: () =>
      import('../../../sandbox/appmsg_business_messages/server.js').then(({ createAppmsgBusinessMessagesStandIn }) => () => ({
        standIn: createAppmsgBusinessMessagesStandIn(),
      })),
  },
});
