import { api } from '../../api';
import type { NlpInput, NlpPatch, NlpView } from './types';

/** The channel's NLP integration: /v1/channels/{id}/nlp under /admin/api. */
const channel = (id: string) => ({ params: { channel_id: id } });

export const nlpApi = {
  /** The integration, or null when the channel has none (the app's own route: no 404 for the browser to log). */
  async get(channelId: string, signal?: AbortSignal): Promise<NlpView | null> {
    const answer = await api.get('/channels/{channel_id}/nlp', { ...channel(channelId), signal });
    return answer.integration;
  },
  /** Creates (201) or replaces (200) the integration. */
  put: (channelId: string, input: NlpInput) => api.put('/v1/channels/{channel_id}/nlp', input, channel(channelId)),
  patch: (channelId: string, patch: NlpPatch) => api.patch('/v1/channels/{channel_id}/nlp', patch, channel(channelId)),
  remove: (channelId: string) => api.delete('/v1/channels/{channel_id}/nlp', channel(channelId)),
  parse: (channelId: string, text: string) => api.post('/v1/channels/{channel_id}/nlp/parse', { text }, channel(channelId)),
};
