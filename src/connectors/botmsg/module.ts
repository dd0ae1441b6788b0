import { defineTypeModule } from '../../channel-types/module.js';
import { ControlApi } from '../../trial/control-api.js';
import { botmsg } from './definition.js';
import { botmsgSettings, STAND_IN_PORT_OFFSET } from './config.js';
import { createBotmsgConnector } from './connector.js';
import { DEFAULT_MAX_MEDIA_BYTES } from './options.js';
import { botmsgTrial } from './trial.js';

export const botmsgModule = defineTypeModule({
  type: 'botmsg',
  definition: botmsg,
  settings: botmsgSettings,
  connector: (s, context) =>
    createBotmsgConnector({
      apiUrl: s.apiUrl,
      secretHeaderName: s.secretHeaderName,
      inboundUrl: context.inboundUrl,
      timeoutMs: context.timeoutMs,
      maxMediaBytes: DEFAULT_MAX_MEDIA_BYTES,
      media: context.media,
    }),
  mediaSources: (s) => [s.apiUrl],
  failureCodes: {
    '403': 2, // bot blocked by the user, user deactivated, conversation never started
    chat_not_found: 3, // 400 "Bad Request: chat not found" (api.ts)
    no_recipient: 3,
  },
  standIn: {
    name: 'botmsg',
    portOffset: STAND_IN_PORT_OFFSET,
    urlVariable: 'BOTMSG_API_URL',
    load: () => import('../../../sandbox/botmsg/server.js').then(({ createBotmsgStandIn }) => () => ({ standIn: createBotmsgStandIn() })),
  },
  trial: (s, timeoutMs) => botmsgTrial(new ControlApi(s.apiUrl, timeoutMs)),
});
