// What a channel's state is, in one word and a tone, for lists and the details header.
import type { Channel } from '../types';
import { getPath } from './fields';

export interface ChannelState {
  label: string;
  tone: 'ok' | 'warn' | 'bad' | 'neutral';
  description: string;
}

export const RBM_STATE_TEXT: Record<string, { label: string; description: string; tone: ChannelState['tone'] }> = {
  new: { label: 'Agent not registered', description: 'The agent does not exist on the RCS platform yet.', tone: 'warn' },
  create_requested: { label: 'Registration requested', description: 'The request to register the agent was received.', tone: 'warn' },
  created: { label: 'Agent created', description: 'The agent can be used with test phone numbers only.', tone: 'warn' },
  launch_requested: { label: 'Launch requested', description: 'The request to launch the agent was received.', tone: 'warn' },
  launched: { label: 'Launched', description: 'RCS messages can be sent to any phone number.', tone: 'ok' },
};

export function rbmStateOf(channel: Channel): string {
  const state = getPath(channel, 'rbm.agent_state');
  return typeof state === 'string' ? state : 'new';
}

export function stateOf(channel: Channel): ChannelState {
  if (channel.type === 'rbm') {
    const text = RBM_STATE_TEXT[rbmStateOf(channel)] ?? { label: rbmStateOf(channel), description: '', tone: 'neutral' as const };
    return text;
  }
  if (channel.mode === 'test') return { label: 'Test mode', tone: 'warn', description: 'Messages are accepted and stored but never sent.' };
  if (channel.type === 'socialnet_chat' && !getPath(channel, 'socialnet_page.id'))
    return { label: 'Page not connected', tone: 'bad', description: 'Sending and receiving work only while a page is connected.' };
  if (channel.type === 'socialnet_chat' && getPath(channel, 'socialnet_page.page_state') === 'disconnected') {
    const reason = getPath(channel, 'socialnet_page.page_state_reason');
    return {
      label: 'Page disconnected',
      tone: 'bad',
      description: `The platform no longer takes the page's token${typeof reason === 'string' ? ` (${reason})` : ''}: update the channel with a new token.`,
    };
  }
  return { label: 'Active', tone: 'ok', description: 'Messages are sent and received.' };
}
