// The tabs of the channel detail page after "Details", in order: Webhook, Settings,
// Conversations, NLP, Local trial. Each entry is a page of src/channel/.
import type { ChannelRoute } from '../channels/channel-route';
import { ConversationsTab } from './conversations/ConversationsTab';
import { NlpTab } from './nlp/NlpTab';
import { SettingsTab } from './settings/SettingsTab';
import { TrialTab } from './trial/TrialTab';
import { WebhookTab } from './webhook/WebhookTab';
import '../styles/channel.css';

export const channelRoutes: ChannelRoute[] = [
  { path: '/admin/channels/:id/webhook', label: 'Webhook', Component: WebhookTab },
  { path: '/admin/channels/:id/settings', label: 'Settings', Component: SettingsTab },
  { path: '/admin/channels/:id/conversations', label: 'Conversations', Component: ConversationsTab },
  { path: '/admin/channels/:id/nlp', label: 'NLP', Component: NlpTab },
  { path: '/admin/channels/:id/trial', label: 'Local trial', Component: TrialTab },
];
