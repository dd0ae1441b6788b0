// How channel types and modes are named on screen.
import type { ChannelType } from '../types';

export const TYPE_LABELS: Record<ChannelType, string> = {
  service_chat: 'Web chat (service_chat)',
  socialnet_chat: 'Social network chat (socialnet_chat)',
  mobile: 'SMS (mobile)',
  rbm: 'RCS business messaging (rbm)',
  appmsg: 'App messaging (appmsg)',
  appmsg_business_messages: 'App business messages (appmsg_business_messages)',
  botmsg: 'Bot messaging (botmsg)',
  email: 'E-mail (email, alpha)',
};

export const SHORT_TYPE_LABELS: Record<ChannelType, string> = {
  service_chat: 'Web chat',
  socialnet_chat: 'Social chat',
  mobile: 'SMS',
  rbm: 'RCS',
  appmsg: 'App messaging',
  appmsg_business_messages: 'App business',
  botmsg: 'Bot messaging',
  email: 'E-mail',
};

export function typeLabel(type: string): string {
  return (TYPE_LABELS as Record<string, string>)[type] ?? type;
}

export function shortTypeLabel(type: string): string {
  return (SHORT_TYPE_LABELS as Record<string, string>)[type] ?? type;
}
