import { defineTypeModule } from '../../channel-types/module.js';
import { ControlApi } from '../../trial/control-api.js';
import { mobile } from './definition.js';
import { smsproviderSettings, STAND_IN_PORT_OFFSET } from './config.js';
import { createMobileConnector } from './connector.js';
import { mobileTrial } from './trial.js';

export const mobileModule = defineTypeModule({
  type: 'mobile',
  definition: mobile,
  settings: smsproviderSettings,
  connector: (s, context) =>
    createMobileConnector({
      apiUrl: s.apiUrl,
      timeoutMs: context.timeoutMs,
      signatureHeaderName: s.signatureHeaderName,
      jwtIssuer: s.jwtIssuer,
      inboundUrl: context.inboundUrl,
      now: context.now,
    }),
  standIn: {
    name: 'smsprovider',
    portOffset: STAND_IN_PORT_OFFSET,
    urlVariable: 'SMSPROVIDER_API_URL',
    load: () => import('../../../sandbox/smsprovider/server.js').then(({ createSmsproviderStandIn }) => () => ({ standIn: createSmsproviderStandIn() })),
  },
  trial: (s, timeoutMs) => mobileTrial(new ControlApi(s.apiUrl, timeoutMs)),
});
