import { api, ApiFailure } from '../../api';
import type { NlpInput, NlpParseResult, NlpPatch, NlpView } from './types';

/** The channel's NLP integration: /v1/channels/{id}/nlp under /admin/api. */
const path = (channelId: string) => `/v1/channels/${encodeURIComponent(channelId)}/nlp`;

export const nlpApi = {
  /** The integration, or null when the channel has none (404). */
  async get(channelId: string, signal?: AbortSignal): Promise<NlpView | null> {
    try {
      return await api.get<NlpView>(path(channelId), undefined, signal);
    } catch (error) {
      if (error instanceof ApiFailure && error.status === 404) return null;
      throw error;
    }
  },
  /** Creates (201) or replaces (200) the integration. */
  put: (channelId: string, input: NlpInput) => api.put<NlpView>(path(channelId), input),
  patch: (channelId: string, patch: NlpPatch) => api.patch<NlpView>(path(channelId), patch),
  remove: (channelId: string) => api.delete(path(channelId)),
  parse: (channelId: string, text: string) => api.post<NlpParseResult>(`${path(channelId)}/parse`, { text }),
};
