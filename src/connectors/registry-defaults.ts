import { Type } from '@sinclair/typebox';
import { ConnectorRegistry, type ChannelStateReports } from './connector.js';
import { createBotmsgConnector } from './botmsg/connector.js';
import { DEFAULT_MAX_MEDIA_BYTES as BOTMSG_MAX_MEDIA } from './botmsg/options.js';
import { createSocialnetChatConnector } from './socialnet_chat/connector.js';
import { allowlistEntryOf, MediaDownloader } from './media-download.js';
import { DEFAULT_MAX_MEDIA_BYTES as SOCIALNET_MAX_MEDIA } from './socialnet_chat/options.js';
import { socialnetChatSettings } from './socialnet_chat/config.js';
import { botmsgSettings } from './botmsg/config.js';
import { createMobileConnector } from './mobile/connector.js';
import { smsproviderSettings } from './mobile/config.js';
import { createRbmConnector } from './rbm/connector.js';
import { rbmSettings } from './rbm/config.js';
import { RBM_MAX_MEDIA } from './rbm/options.js';
import { createAppmsgConnector } from './appmsg/connector.js';
import { appmsgSettings } from './appmsg/config.js';
import { createEmailConnector } from './email/connector.js';
import { mailproviderSettings } from './email/config.js';
import { createAppmsgBusinessConnector } from './appmsg_business_messages/connector.js';
import { appmsgBusinessSettings } from './appmsg_business_messages/config.js';
import { listSetting, settingsFragment, type SettingsOf } from '../lib/env-settings.js';

/** What every connector shares: the deadline of each platform call, and where received files may come from. */
const platformSettings = settingsFragment(
  {
    PLATFORM_TIMEOUT_MS: Type.Optional(Type.Integer({ minimum: 1 })),
    MEDIA_ALLOWLIST: Type.Optional(Type.String()),
  },
  (v) => ({
    timeoutMs: v.PLATFORM_TIMEOUT_MS ?? 10_000,
    /** Private hosts, addresses and ranges (optionally with a port) received files may be downloaded from. */
    mediaAllowlist: listSetting(v.MEDIA_ALLOWLIST) as readonly string[],
  }),
);

/**
 * The configuration the connectors contribute, one fragment each. The runtime hands this list
 * to config.ts, which checks every variable at start; config.ts itself names no platform.
 */
export const CONNECTOR_SETTINGS = {
  platforms: platformSettings,
  socialnet_chat: socialnetChatSettings,
  botmsg: botmsgSettings,
  smsprovider: smsproviderSettings,
  appmsg: appmsgSettings,
  rbm: rbmSettings,
  mailprovider: mailproviderSettings,
  appmsg_business_messages: appmsgBusinessSettings,
};

export type ConnectorSettings = SettingsOf<typeof CONNECTOR_SETTINGS>;

/** What the platform connectors need (runtime.ts passes it): their settings and the service's public address. */
export type PlatformConnectorSettings = ConnectorSettings & {
  /** `{base_url}`: the service's public address ending in /v1; inbound URLs are built from it. */
  publicUrl: string;
  /** The service's clock (ms), for platform signatures with a time (the SMS provider's JWT); Date.now when not given. */
  now?: () => number;
  /** Where connectors report channel states their calls revealed (a disconnected page). */
  channelStates?: ChannelStateReports;
};

/** The registry with every platform connector that is built, configured from the settings. */
export function defaultConnectors(settings: PlatformConnectorSettings): ConnectorRegistry {
  const registry = new ConnectorRegistry();
  const s = settings.socialnet_chat;
  // The platforms' own base URLs are trusted as configured (the local stand-ins in development),
  // each exactly at its host and port; anything else private needs MEDIA_ALLOWLIST.
  const platforms = [s.apiUrl, settings.botmsg.apiUrl, settings.rbm.apiUrl.replace('{region}', 'europe'), settings.appmsg.apiUrl]
    .map(allowlistEntryOf)
    .filter((e): e is string => e !== null);
  const media = new MediaDownloader({ allowlist: [...settings.platforms.mediaAllowlist, ...platforms] });
  registry.register(
    createSocialnetChatConnector({
      apiUrl: s.apiUrl,
      apiVersion: s.apiVersion,
      ...(s.appId ? { appId: s.appId } : {}),
      ...(s.appSecret ? { appSecret: s.appSecret } : {}),
      ...(s.verifyToken ? { verifyToken: s.verifyToken } : {}),
      tokenPrefix: s.tokenPrefix,
      profileEdge: s.profileEdge,
      callbackUrl: `${settings.publicUrl}/inbound/socialnet_chat`,
      subscribeApp: s.subscribeApp,
      timeoutMs: settings.platforms.timeoutMs,
      maxMediaBytes: SOCIALNET_MAX_MEDIA,
      media,
      ...(settings.channelStates ? { channelStates: settings.channelStates } : {}),
    }),
  );
  registry.register(
    createBotmsgConnector({
      apiUrl: settings.botmsg.apiUrl,
      secretHeaderName: settings.botmsg.secretHeaderName,
      inboundUrl: (channelId, endpoint) => `${settings.publicUrl}/inbound/${channelId}/${endpoint}`,
      timeoutMs: settings.platforms.timeoutMs,
      maxMediaBytes: BOTMSG_MAX_MEDIA,
      media,
    }),
  );
  registry.register(
    createMobileConnector({
      apiUrl: settings.smsprovider.apiUrl,
      timeoutMs: settings.platforms.timeoutMs,
      signatureHeaderName: settings.smsprovider.signatureHeaderName,
      jwtIssuer: settings.smsprovider.jwtIssuer,
      inboundUrl: (channelId, endpoint) => `${settings.publicUrl}/inbound/${channelId}/${endpoint}`,
      now: settings.now ?? Date.now,
    }),
  );
  registry.register(
    createRbmConnector({
      ...settings.rbm,
      timeoutMs: settings.platforms.timeoutMs,
      clock: { now: settings.now ?? Date.now },
      media,
      maxMediaBytes: RBM_MAX_MEDIA,
    }),
  );
  registry.register(
    createAppmsgConnector({
      ...settings.appmsg,
      inboundUrl: (channelId, endpoint) => `${settings.publicUrl}/inbound/${channelId}/${endpoint}`,
      timeoutMs: settings.platforms.timeoutMs,
      media,
    }),
  );
  registry.register(
    createEmailConnector({
      ...settings.mailprovider,
      timeoutMs: settings.platforms.timeoutMs,
      inboundUrl: (channelId, endpoint) => `${settings.publicUrl}/inbound/${channelId}/${endpoint}`,
      media,
      now: settings.now ?? Date.now,
    }),
  );
  registry.register(
    createAppmsgBusinessConnector({
      ...settings.appmsg_business_messages,
      timeoutMs: settings.platforms.timeoutMs,
      mediaAllowlist: [...settings.platforms.mediaAllowlist, ...platforms],
    }),
  );
  return registry;
}
