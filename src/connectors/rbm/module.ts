import { defineTypeModule } from '../../channel-types/module.js';
import { rbm } from './definition.js';
import { rbmSettings, STAND_IN_PORT_OFFSET } from './config.js';
import { createRbmConnector } from './connector.js';
import { RBM_MAX_MEDIA } from './options.js';

export const rbmModule = defineTypeModule({
  type: 'rbm',
  definition: rbm,
  settings: rbmSettings,
  connector: (s, context) =>
    createRbmConnector({ ...s, timeoutMs: context.timeoutMs, clock: { now: context.now }, media: context.media, maxMediaBytes: RBM_MAX_MEDIA }),
  // The messaging API's address names the agent's region; its files come from the same host.
  mediaSources: (s) => [s.apiUrl.replace('{region}', 'europe')],
  // The messaging API's HTTP status: 404 (and 403 in older references) = the user cannot be reached.
  failureCodes: {
    '404': 3,
    '403': 3,
  },
  standIn: {
    name: 'rbm',
    portOffset: STAND_IN_PORT_OFFSET,
    urlVariable: 'RBM_API_URL',
    load: () => import('../../../sandbox/rbm/server.js').then(({ createRbmStandIn }) => () => ({ standIn: createRbmStandIn() })),
  },
});
