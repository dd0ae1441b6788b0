import { api } from '../../api';
import type { NlpInput, NlpParseResult, NlpPatch, NlpView } from './types';

/** The channel's NLP integration: /v1/channels/{id}/nlp under /admin/api. */
const path = (channelId: string) => `/v1/channels/${encodeURIComponent(channelId)}/nlp`;

export const nlpApi = {
  /** The integration, or null when the channel has none (the app's own route: no 404 for the browser to log). */
  async get(channelId: string, signal?: AbortSignal): Promise<NlpView | null> {
    const answer = await api.get<{ integration: NlpView | null }>(`/channels/${encodeURIComponent(channelId)}/nlp`, undefined, signal);
    return answer.integration;
  },
  /** Creates (201) or replaces (200) the integration. */
  put: (channelId: string, input: NlpInput) => api.put<NlpView>(path(channelId), input),
  patch: (channelId: string, patch: NlpPatch) => api.patch<NlpView>(path(channelId), patch),
  remove: (channelId: string) => api.delete(path(channelId)),
  parse: (channelId: string, text: string) => api.post<NlpParseResult>(`${path(channelId)}/parse`, { text }),
};
