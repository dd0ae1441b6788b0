import type { ChannelType } from '../schemas/channel-types.js';
import { ControlApi } from './control-api.js';
import type { TrialDriver } from './driver.js';
import { botmsgTrial } from './botmsg.js';
import { mobileTrial } from './mobile.js';
import { socialnetChatTrial } from './socialnet_chat.js';

export type { TrialDriver, TrialUser } from './driver.js';

/** Where each platform's stand-in listens: the platform URLs the server is configured with. */
export interface StandInUrls {
  socialnet_chat: string;
  botmsg: string;
  mobile: string;
}

/**
 * The types a stand-in can act as an end user for, with their drivers. rbm, appmsg,
 * appmsg_business_messages and email have stand-ins but no connector receives their calls yet;
 * service_chat is tried in the browser with the widget itself.
 */
export function trialDrivers(urls: StandInUrls, timeoutMs: number): ReadonlyMap<ChannelType, TrialDriver> {
  return new Map<ChannelType, TrialDriver>([
    ['socialnet_chat', socialnetChatTrial(new ControlApi(urls.socialnet_chat, timeoutMs))],
    ['botmsg', botmsgTrial(new ControlApi(urls.botmsg, timeoutMs))],
    ['mobile', mobileTrial(new ControlApi(urls.mobile, timeoutMs))],
  ]);
}
