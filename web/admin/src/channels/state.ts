// What a channel's state is, in one word and a tone, for lists and the details header: the
// platform-side state its type describes first, then the mode.
import type { Channel, ChannelTypeInfo, PlatformStateInfo } from '../types';
import { getPath } from './fields';

export interface ChannelState {
  label: string;
  tone: 'ok' | 'warn' | 'bad' | 'neutral';
  description: string;
}

/** The channel's platform-side state (the type's initial one when the channel shows none). */
export function platformStateOf(channel: Channel, state: PlatformStateInfo): string | undefined {
  const value = getPath(channel, state.path);
  return typeof value === 'string' ? value : state.initial;
}

/** The text of a state, its `{reason}` filled in with the platform's reason when it gave one. */
function textOf(channel: Channel, state: PlatformStateInfo, current: string): ChannelState | undefined {
  const text = state.states.find((s) => s.state === current);
  if (!text) return undefined;
  const reason = getPath(channel, state.reason_path);
  return { ...text, description: text.description.replace('{reason}', typeof reason === 'string' ? ` (${reason})` : '') };
}

export function stateOf(channel: Channel, info: ChannelTypeInfo | undefined): ChannelState {
  const platform = info?.platform_state;
  if (platform?.missing && !getPath(channel, platform.missing.path)) return platform.missing;
  const current = platform ? platformStateOf(channel, platform) : undefined;
  const text = platform && current !== undefined ? textOf(channel, platform, current) : undefined;
  if (text) return text;
  if (platform?.initial !== undefined && current !== undefined) return { label: current, description: '', tone: 'neutral' };
  if (channel.mode === 'test') return { label: 'Test mode', tone: 'warn', description: 'Messages are accepted and stored but never sent.' };
  return { label: 'Active', tone: 'ok', description: 'Messages are sent and received.' };
}
