// The channel types as the server describes them (GET /admin/api/channel-types): names, modes,
// fields, how contacts are addressed, platform-side states. Loaded once and kept: they change
// only with the server's version.
import { useEffect, useState } from 'react';
import { api } from '../api';
import type { ChannelTypeInfo } from '../types';

let loading: Promise<ChannelTypeInfo[]> | null = null;
let loaded: ChannelTypeInfo[] | null = null;

export function loadChannelTypes(): Promise<ChannelTypeInfo[]> {
  loading ??= api.get('/channel-types').then(
    (answer) => (loaded = answer.data),
    (error: unknown) => {
      loading = null;
      throw error;
    },
  );
  return loading;
}

/** Every type in the server's order, or null while they load. */
export function useChannelTypes(): ChannelTypeInfo[] | null {
  const [types, setTypes] = useState(loaded);
  useEffect(() => {
    if (types) return;
    let live = true;
    loadChannelTypes().then(
      (all) => live && setTypes(all),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [types]);
  return types;
}

/** One type's description, or undefined while the types load (or for a type the server no longer has). */
export function useChannelType(type: string): ChannelTypeInfo | undefined {
  return useChannelTypes()?.find((t) => t.type === type);
}

/** A type's name on screen (its short one for lists and badges); the id itself until the types are loaded. */
export function typeLabelOf(types: ChannelTypeInfo[] | null, type: string, short = false): string {
  const info = types?.find((t) => t.type === type);
  return info ? (short ? info.short_label : info.label) : type;
}
