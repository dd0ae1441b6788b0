import { ConnectorRegistry } from './connector.js';
import { createBotmsgConnector } from './botmsg/connector.js';
import { DEFAULT_MAX_MEDIA_BYTES as BOTMSG_MAX_MEDIA } from './botmsg/options.js';
import { createSocialnetChatConnector } from './socialnet_chat/connector.js';
import { allowlistEntryOf, MediaDownloader } from './media-download.js';
import { DEFAULT_MAX_MEDIA_BYTES as SOCIALNET_MAX_MEDIA } from './socialnet_chat/options.js';

/** The socialnet_chat app the service runs as, and the brand-carrying names of its protocol (config.ts reads them). */
export interface SocialnetAppSettings {
  apiVersion: string;
  appId: string | undefined;
  appSecret: string | undefined;
  verifyToken: string | undefined;
  tokenPrefix: string;
  profileEdge: string;
  subscribeApp: boolean;
}

/** What the platform connectors need from the service's configuration (runtime.ts passes it). */
export interface PlatformConnectorSettings {
  /** `{base_url}`: the service's public address ending in /v1; inbound URLs are built from it. */
  publicUrl: string;
  timeoutMs: number;
  /** MEDIA_ALLOWLIST: private hosts, addresses and ranges received files may come from. */
  mediaAllowlist: readonly string[];
  socialnet: SocialnetAppSettings & { apiUrl: string };
  botmsg: {
    apiUrl: string;
    secretHeaderName: string;
  };
}

/** The registry with every platform connector that is built, configured from the settings. */
export function defaultConnectors(settings: PlatformConnectorSettings): ConnectorRegistry {
  const registry = new ConnectorRegistry();
  const s = settings.socialnet;
  // The platforms' own base URLs are trusted as configured (the local stand-ins in development),
  // each exactly at its host and port; anything else private needs MEDIA_ALLOWLIST.
  const platforms = [s.apiUrl, settings.botmsg.apiUrl].map(allowlistEntryOf).filter((e): e is string => e !== null);
  const media = new MediaDownloader({ allowlist: [...settings.mediaAllowlist, ...platforms] });
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
      timeoutMs: settings.timeoutMs,
      maxMediaBytes: SOCIALNET_MAX_MEDIA,
      media,
    }),
  );
  registry.register(
    createBotmsgConnector({
      apiUrl: settings.botmsg.apiUrl,
      secretHeaderName: settings.botmsg.secretHeaderName,
      inboundUrl: (channelId, endpoint) => `${settings.publicUrl}/inbound/${channelId}/${endpoint}`,
      timeoutMs: settings.timeoutMs,
      maxMediaBytes: BOTMSG_MAX_MEDIA,
      media,
    }),
  );
  return registry;
}
