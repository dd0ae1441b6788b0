// The fields of each channel type's own object, as Create and Update Channel take them. Paths
// are the request's JSON paths, which are also the `field` of the API's 422 answers.
import type { ChannelType } from '../types';

export interface FieldSpec {
  /** JSON path in the request body, e.g. 'provider.sender_id'. */
  path: string;
  label: string;
  /** The label on the channel's details page, when other than the form's. */
  viewLabel?: string;
  /** `json`: an object pasted as JSON text (a key file), sent as the object. */
  kind: 'text' | 'secret' | 'email' | 'integer' | 'select' | 'json' | 'boolean';
  required?: boolean;
  description?: string;
  options?: { id: string; label: string }[];
  /** Where the Channel object shows the current value, when not at `path` (rbm region). */
  viewPaths?: string[];
  placeholder?: string;
  /**
   * The object of the type the field belongs to (a key of GROUP_TITLES, e.g. the rbm agent's
   * profile): its fields are shown under its title, and an edit sends the whole object when one
   * of them changed (the API replaces the object's lists and nested objects as given).
   */
  group?: string;
}

/** Titles and one-line introductions of the field groups. */
export const GROUP_TITLES: Record<string, { title: string; intro: string }> = {
  'rbm.agent_profile': {
    title: 'Agent profile',
    intro: 'Needed when the service registers the agent: how users see it. Give a phone number or an e-mail address; the launch needs one.',
  },
  'rbm.verification_contact': {
    title: 'Brand verification',
    intro: 'Needed with the profile: who the platform asks to confirm that you represent the brand.',
  },
  'rbm.launch_questionnaire': {
    title: 'Launch questionnaire',
    intro: 'Needed to launch the agent: the answers the platform and the carriers review.',
  },
};

export interface TypeSpec {
  modes: string[];
  /** Fixed values of the type object (the provider's type). */
  fixed?: Record<string, string>;
  fields: FieldSpec[];
  /** One sentence on what the type needs, shown above its fields. */
  intro: string;
}

export const RBM_REGIONS = [
  { id: 'north_america', label: 'North America' },
  { id: 'europe', label: 'Europe' },
  { id: 'asia_pacific', label: 'Asia Pacific' },
];

const profile = 'rbm.agent_profile';
const verification = 'rbm.verification_contact';
const questionnaire = 'rbm.launch_questionnaire';

/** What the platform needs to register an rbm agent and to launch it (see GROUP_TITLES). */
const RBM_AGENT_FIELDS: FieldSpec[] = [
  { group: profile, path: `${profile}.description`, label: 'Agent description', kind: 'text', description: 'Shown to users, at most 100 characters.' },
  { group: profile, path: `${profile}.logo_url`, label: 'Logo URL', kind: 'text', placeholder: 'https://example.com/logo.png', description: 'At most 50 KB.' },
  {
    group: profile,
    path: `${profile}.hero_url`,
    label: 'Banner image URL',
    kind: 'text',
    placeholder: 'https://example.com/banner.png',
    description: 'At most 200 KB.',
  },
  { group: profile, path: `${profile}.color`, label: 'Theme color', kind: 'text', placeholder: '#0B78D0' },
  {
    group: profile,
    path: `${profile}.billing_category`,
    label: 'Billing category',
    kind: 'select',
    options: [
      { id: 'conversational', label: 'Conversational: billed per conversation' },
      { id: 'non_conversational', label: 'Non-conversational: billed per message' },
    ],
  },
  {
    group: profile,
    path: `${profile}.use_case`,
    label: 'Use case',
    kind: 'select',
    options: [
      { id: 'transactional', label: 'Transactional' },
      { id: 'promotional', label: 'Promotional' },
      { id: 'otp', label: 'One-time passwords' },
      { id: 'multi_use', label: 'Multi-use' },
    ],
  },
  { group: profile, path: `${profile}.privacy_policy.url`, label: 'Privacy policy URL', kind: 'text' },
  { group: profile, path: `${profile}.terms_and_conditions.url`, label: 'Terms and conditions URL', kind: 'text' },
  { group: profile, path: `${profile}.phones.0.number`, label: 'Contact phone number', kind: 'text', placeholder: '+12025550143' },
  { group: profile, path: `${profile}.phones.0.label`, label: 'Contact phone label', kind: 'text', placeholder: 'Call us' },
  { group: profile, path: `${profile}.emails.0.address`, label: 'Contact e-mail address', kind: 'email' },
  { group: profile, path: `${profile}.emails.0.label`, label: 'Contact e-mail label', kind: 'text', placeholder: 'Write to us' },
  { group: profile, path: `${profile}.websites.0.url`, label: 'Website URL', kind: 'text' },
  { group: profile, path: `${profile}.websites.0.label`, label: 'Website label', kind: 'text', placeholder: 'Our website' },
  { group: verification, path: `${verification}.partner_name`, label: 'Partner name', kind: 'text', description: 'You, who ask for the agent.' },
  { group: verification, path: `${verification}.partner_email`, label: 'Partner e-mail', kind: 'email' },
  { group: verification, path: `${verification}.brand_contact_name`, label: 'Brand contact name', kind: 'text' },
  { group: verification, path: `${verification}.brand_contact_email`, label: 'Brand contact e-mail', kind: 'email' },
  { group: verification, path: `${verification}.brand_website_url`, label: 'Brand website URL', kind: 'text' },
  { group: questionnaire, path: `${questionnaire}.contacts.0.name`, label: 'Review contact name', kind: 'text' },
  { group: questionnaire, path: `${questionnaire}.contacts.0.title`, label: 'Review contact title', kind: 'text' },
  { group: questionnaire, path: `${questionnaire}.contacts.0.email`, label: 'Review contact e-mail', kind: 'email' },
  { group: questionnaire, path: `${questionnaire}.opt_in_description`, label: 'How users opt in', kind: 'text' },
  { group: questionnaire, path: `${questionnaire}.trigger_description`, label: 'What triggers messages', kind: 'text' },
  { group: questionnaire, path: `${questionnaire}.interactions_description`, label: 'The conversations', kind: 'text' },
  { group: questionnaire, path: `${questionnaire}.opt_out_description`, label: 'What users get when they opt out', kind: 'text' },
  { group: questionnaire, path: `${questionnaire}.access_instructions`, label: 'How reviewers reach the agent', kind: 'text' },
  { group: questionnaire, path: `${questionnaire}.video_urls.0`, label: 'Demo video URL', kind: 'text', description: 'Optional.' },
  { group: questionnaire, path: `${questionnaire}.screenshot_urls.0`, label: 'Screenshot URL', kind: 'text', description: 'Optional.' },
];

export const TYPE_SPECS: Record<ChannelType, TypeSpec> = {
  service_chat: {
    modes: ['production'],
    fields: [],
    intro: 'A web chat on your own site: after creating it, whitelist your domains in its Settings tab and paste the one-tag snippet into your pages.',
  },
  socialnet_chat: {
    modes: ['production'],
    intro: 'Connects one page of the social network. Sending and receiving work only while the page is connected.',
    fields: [
      { path: 'socialnet_page.id', label: 'Page id', kind: 'text', required: true, description: "The page's id on the social network." },
      {
        path: 'socialnet_page.access_token',
        label: 'Page access token',
        kind: 'secret',
        required: true,
        description: 'A short- or long-lived page token; the service keeps a long-lived one.',
      },
    ],
  },
  mobile: {
    modes: ['production', 'test'],
    fixed: { 'provider.type': 'smsprovider' },
    intro: 'SMS through the SMS provider. In test mode messages are stored and echoed but never sent.',
    fields: [
      {
        path: 'provider.sender_id',
        label: 'Sender id',
        kind: 'text',
        required: true,
        description: 'Your registered phone number, or any name when you send from a shared number.',
        placeholder: '+12025550143',
      },
      { path: 'provider.access_token', label: 'Provider access token', kind: 'secret', required: true },
      {
        path: 'provider.signing_key',
        label: 'Signing key',
        kind: 'secret',
        required: true,
        description: "Verifies that the provider's calls to this service are genuine.",
      },
      { path: 'provider.send_rate', label: 'Messages per second', kind: 'integer', description: "Optional, 1 to 1000; the type's own rate when empty." },
    ],
  },
  rbm: {
    modes: ['production', 'test'],
    intro:
      'RCS business messaging through an agent. With the service-account key, the service registers a new agent when you ask (or uses the one you name) and follows its launch.',
    fields: [
      { path: 'rbm.agent_name', label: 'Agent name', kind: 'text', required: true, description: 'Shown to end users.' },
      {
        path: 'region',
        label: 'Region',
        kind: 'select',
        options: RBM_REGIONS,
        viewPaths: ['rbm.region', 'region'],
        description: 'Where the agent is registered.',
      },
      {
        path: 'rbm.service_account_key',
        label: 'Service-account key (JSON)',
        viewLabel: 'Service account',
        kind: 'json',
        description: 'Paste the key file the platform issued, as it is. It is kept encrypted and never shown again; the channel shows only its client_email.',
        placeholder: '{"type": "service_account", "client_email": "…", "private_key": "…"}',
      },
      {
        path: 'rbm.agent_id',
        label: 'Existing agent id',
        viewLabel: 'Agent id',
        kind: 'text',
        description: 'Optional: an agent you already have on the platform (its id, or brands/…/agents/…). Without it the service registers one.',
      },
      {
        path: 'rbm.client_token',
        label: 'Client token',
        kind: 'secret',
        description: 'Optional: the token the platform signs its webhook calls with; the service makes one when empty.',
      },
      ...RBM_AGENT_FIELDS,
    ],
  },
  appmsg: {
    modes: ['production'],
    intro: 'Messaging through the app platform with an access token.',
    fields: [{ path: 'appmsg.access_token', label: 'Access token', kind: 'secret', required: true }],
  },
  appmsg_business_messages: {
    modes: ['production', 'test', 'shared'],
    intro: 'Business messages through the app platform. Shared mode sends under a common sender identity, free of charge and limited in number.',
    fields: [
      {
        path: 'appmsg_business_messages.sender_id',
        label: 'Sender id',
        kind: 'text',
        required: true,
        description: "The platform's numeric service id the channel sends under.",
        placeholder: '4001',
      },
      {
        path: 'appmsg_business_messages.default_message_ttl',
        label: 'Default message lifetime',
        kind: 'text',
        description: 'Optional: how long the platform tries to deliver a message, as an ISO 8601 duration from PT30S to P14D (e.g. PT20M). Empty: 14 days.',
        placeholder: 'PT20M',
      },
      {
        path: 'appmsg_business_messages.legacy_plain_text',
        label: 'Sender id may still send plain text (made before 1 April 2026)',
        kind: 'boolean',
      },
      {
        path: 'appmsg_business_messages.callback_secret',
        label: 'Callback secret',
        kind: 'secret',
        description:
          "Optional, 16 to 200 letters, digits, '-' or '_': the token of the callback URL that proves a callback is the platform's; the service makes one when empty.",
      },
    ],
  },
  botmsg: {
    modes: ['production'],
    intro: "A bot of the bot messaging platform: paste the bot's token; its name and username are read from the platform.",
    fields: [{ path: 'botmsg.access_token', label: 'Bot token', kind: 'secret', required: true }],
  },
  email: {
    modes: ['production'],
    fixed: { 'provider.type': 'mailprovider' },
    intro:
      'E-mail through the mail provider (alpha: the structure may change). The service registers its routes for incoming mail and events with the provider.',
    fields: [
      { path: 'provider.access_token', label: 'Provider API key', kind: 'secret', required: true },
      { path: 'provider.sender.email', label: 'Sender address', kind: 'email', required: true, placeholder: 'support@example.com' },
      { path: 'provider.sender.name', label: 'Sender name', kind: 'text', required: true, placeholder: 'Example Support' },
      {
        path: 'provider.domain',
        label: 'Sending domain',
        kind: 'text',
        description: "Optional: the provider's domain to send from. Empty: the sender address's domain.",
      },
      {
        path: 'provider.region',
        label: 'Provider region',
        kind: 'select',
        options: [
          { id: 'us', label: 'US' },
          { id: 'eu', label: 'EU' },
        ],
        description: 'Where the provider keeps the domain.',
      },
      {
        path: 'provider.webhook_signing_key',
        label: 'Webhook signing key',
        kind: 'secret',
        description: "Optional: the provider's HTTP webhook signing key (not the API key), which proves its calls with incoming mail and events.",
      },
      { path: 'provider.default_subject', label: 'Default subject', kind: 'text', description: 'Optional: the subject of a first message sent without one.' },
      { path: 'provider.open_tracking', label: 'Track opens (reported as read)', kind: 'boolean' },
    ],
  },
};

export const MODE_LABELS: Record<string, string> = {
  production: 'Production: messages are sent',
  test: 'Test: accepted and stored, never sent, no cost',
  shared: 'Shared: common sender identity, free, limited',
};

/** The value at a dotted path of an object. */
export function getPath(value: unknown, path: string): unknown {
  let at: unknown = value;
  for (const key of path.split('.')) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** Sets a dotted path, creating the objects on the way (a list where the next key is an index: `phones.0.number`). */
export function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let at = target;
  keys.slice(0, -1).forEach((key, i) => {
    const next = at[key];
    if (next === null || typeof next !== 'object') at[key] = /^\d+$/.test(keys[i + 1] ?? '') ? [] : {};
    at = at[key] as Record<string, unknown>;
  });
  at[keys[keys.length - 1] as string] = value;
}
