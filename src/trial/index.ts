import type { ChannelType } from '../schemas/channel-types.js';
import type { TrialDriver } from './driver.js';
import { TYPE_MODULES } from '../channel-types/modules.js';

export type { TrialDriver, TrialUser } from './driver.js';

/**
 * The types a stand-in can act as an end user for, with their drivers: each type whose module has
 * a `trial`, pointed at the platform URL its connector uses (the stand-in's by default). Types
 * whose stand-in cannot write yet have none; service_chat is tried in the browser with the widget.
 */
export function trialDrivers(settings: { platforms: { timeoutMs: number } }): ReadonlyMap<ChannelType, TrialDriver> {
  const own = (type: string): unknown => (settings as Record<string, unknown>)[type];
  return new Map(TYPE_MODULES.flatMap((m) => (m.trial ? [[m.type, m.trial(own(m.type), settings.platforms.timeoutMs)] as const] : [])));
}
