import { defineTypeModule } from '../../channel-types/module.js';
import { ControlApi } from '../../trial/control-api.js';
import { socialnetChat } from './definition/index.js';
import { socialnetChatSettings, STAND_IN_PORT_OFFSET } from './config.js';
import { createSocialnetChatConnector } from './connector.js';
import { DEFAULT_MAX_MEDIA_BYTES } from './options.js';
import { socialnetChatTrial } from './trial.js';

export const socialnetChatModule = defineTypeModule({
  type: 'socialnet_chat',
  definition: socialnetChat,
  settings: socialnetChatSettings,
  connector: (s, context) =>
    createSocialnetChatConnector({
      apiUrl: s.apiUrl,
      apiVersion: s.apiVersion,
      ...(s.appId ? { appId: s.appId } : {}),
      ...(s.appSecret ? { appSecret: s.appSecret } : {}),
      ...(s.verifyToken ? { verifyToken: s.verifyToken } : {}),
      tokenPrefix: s.tokenPrefix,
      profileEdge: s.profileEdge,
      callbackUrl: `${context.publicUrl}/inbound/socialnet_chat`,
      subscribeApp: s.subscribeApp,
      timeoutMs: context.timeoutMs,
      maxMediaBytes: DEFAULT_MAX_MEDIA_BYTES,
      media: context.media,
      ...(context.channelStates ? { channelStates: context.channelStates } : {}),
    }),
  mediaSources: (s) => [s.apiUrl],
  // Graph errors are stored as `code` or `code/subcode`; the main code decides.
  failureCodes: {
    '551': 2, // this person isn't available right now (blocked, deleted, unreachable)
    '200/1545041': 2, // the same refusal under the permission code
    '100/2018001': 3, // no matching user found
    no_recipient: 3,
  },
  standIn: {
    name: 'socialnet_chat',
    portOffset: STAND_IN_PORT_OFFSET,
    urlVariable: 'SOCIALNET_API_URL',
    load: () =>
      import('../../../sandbox/socialnet_chat/server.js').then(({ createSocialnetChatStandIn }) => () => {
        const standIn = createSocialnetChatStandIn();
        // The service verifies the platform's signature on inbound calls with the app secret.
        return { standIn, serverEnv: () => ({ SOCIALNET_APP_ID: standIn.state.app.id, SOCIALNET_APP_SECRET: standIn.state.app.secret }) };
      }),
  },
  trial: (s, timeoutMs) => socialnetChatTrial(new ControlApi(s.apiUrl, timeoutMs)),
});
