import { defineTypeModule } from '../../channel-types/module.js';
import { appmsg } from './definition.js';
import { appmsgSettings, STAND_IN_PORT_OFFSET } from './config.js';
import { createAppmsgConnector } from './connector.js';

export const appmsgModule = defineTypeModule({
  type: 'appmsg',
  definition: appmsg,
  settings: appmsgSettings,
  connector: (s, context) => createAppmsgConnector({ ...s, inboundUrl: context.inboundUrl, timeoutMs: context.timeoutMs, media: context.media }),
  mediaSources: (s) => [s.apiUrl],
  // The bot API's `status`: 6 receiverNotSubscribed (unsubscribed, or never wrote), 5 receiverNotRegistered.
  failureCodes: {
    '6': 2,
    '5': 3,
    no_recipient: 3,
  },
  standIn: {
    name: 'appmsg',
    portOffset: STAND_IN_PORT_OFFSET,
    urlVariable: 'APPMSG_API_URL',
    load: () => import('../../../sandbox/appmsg/server.js').then(({ createAppmsgStandIn }) => () => ({ standIn: createAppmsgStandIn() })),
  },
});
