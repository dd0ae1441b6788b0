import { Type } from '@sinclair/typebox';
import { ApiError } from '../../lib/errors.js';
import { Str, strict } from '../../channel-types/common.js';

/**
 * What the platform needs to register an agent and to launch it (beyond the specification): the
 * agent's profile (`brands.agents.create` marks these required: description, logo, hero image,
 * color, billing category, privacy policy and terms; a launch needs a phone or an e-mail contact),
 * the verification contact (`:requestVerification`, every field required) and the launch
 * questionnaire (`:requestLaunch`). The schemas check the shape; which are needed depends on what
 * the client asks for, checked by `checkAgentRequest`.
 */
const url = (description = 'A public HTTP or HTTPS URL.') => Type.String({ minLength: 1, maxLength: 2048, pattern: '^https?://\\S+$', description });
const Url = url();
const Email = Type.String({ minLength: 3, maxLength: 320, format: 'email' });
const Label = Type.String({ minLength: 1, maxLength: 25, description: 'Shown to users next to the contact (at most 25 characters).' });
const LongText = (description: string) => Type.String({ minLength: 1, maxLength: 5000, description });

const WebEntry = (what: string) => Type.Object({ url: Url, label: Type.Optional(Label) }, { ...strict, description: what });

export const AGENT_BILLING_CATEGORIES = ['conversational', 'non_conversational'] as const;
export const AGENT_USE_CASES = ['transactional', 'promotional', 'otp', 'multi_use'] as const;
const MAX_WEBSITES = 3;
const MAX_CONTACTS = 10;

export const AgentProfile = Type.Object(
  {
    description: Type.String({ minLength: 1, maxLength: 100, description: 'Shown to users in the agent’s information (at most 100 characters).' }),
    logo_url: url('Public URL of the logo (the platform takes at most 50 KB).'),
    hero_url: url('Public URL of the banner image (at most 200 KB).'),
    color: Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: 'Theme color, e.g. #0B78D0.' }),
    billing_category: Type.Union(
      AGENT_BILLING_CATEGORIES.map((c) => Type.Literal(c)),
      { description: 'How carriers bill the agent’s messages: per conversation, or per message.' },
    ),
    use_case: Type.Optional(Type.Union(AGENT_USE_CASES.map((c) => Type.Literal(c)))),
    privacy_policy: WebEntry('The privacy policy.'),
    terms_and_conditions: WebEntry('The terms and conditions.'),
    phones: Type.Optional(
      Type.Array(Type.Object({ number: Type.String({ pattern: '^\\+[1-9]\\d{5,14}$', description: 'E.164.' }), label: Label }, strict), { maxItems: 10 }),
    ),
    emails: Type.Optional(Type.Array(Type.Object({ address: Email, label: Label }, strict), { maxItems: 10 })),
    websites: Type.Optional(Type.Array(Type.Object({ url: Url, label: Label }, strict), { maxItems: MAX_WEBSITES })),
  },
  {
    ...strict,
    description:
      'Beyond the specification: the agent as users see it, which the platform requires to register it (needed when the service registers the agent: agent_state create_requested without agent_id). At least one phone or e-mail: the launch needs one.',
  },
);

export const VerificationContact = Type.Object(
  {
    partner_name: Str(200),
    partner_email: Email,
    brand_contact_name: Type.String({ minLength: 1, maxLength: 200, description: 'A person of the brand who can confirm that the partner represents it.' }),
    brand_contact_email: Email,
    brand_website_url: url('The brand’s public website, whose domain is verified.'),
  },
  { ...strict, description: "Beyond the specification: who the platform asks to verify the agent's brand (needed with the agent profile)." },
);

export const LaunchQuestionnaire = Type.Object(
  {
    contacts: Type.Array(Type.Object({ name: Str(200), title: Type.Optional(Str(200)), email: Email }, strict), { minItems: 1, maxItems: MAX_CONTACTS }),
    opt_in_description: LongText('How users agree to receive messages from the agent.'),
    trigger_description: LongText('What makes the agent message a user.'),
    interactions_description: LongText('The conversations the agent has with users.'),
    opt_out_description: LongText('What the agent sends when a user opts out.'),
    access_instructions: LongText('How the reviewers reach and try the agent.'),
    video_urls: Type.Optional(Type.Array(Url, { maxItems: 10 })),
    screenshot_urls: Type.Optional(Type.Array(Url, { maxItems: 10 })),
  },
  { ...strict, description: 'Beyond the specification: the answers the platform reviews before a launch (needed for agent_state launch_requested).' },
);

type Json = Record<string, unknown>;

const obj = (value: unknown): Json => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
const filled = (value: unknown): boolean => (typeof value === 'string' ? value.trim() !== '' : Array.isArray(value) ? value.length > 0 : value !== undefined);

function requireAll(base: string, record: Json, keys: readonly string[], why: string): void {
  for (const key of keys) {
    if (!filled(record[key])) throw ApiError.invalid(`${base}.${key}`, null, `Property '${base}.${key}' is required ${why}.`);
  }
}

/**
 * Checks that a channel asking for a state on the platform has what the platform needs for it:
 * registering an agent (`create_requested`, no `agent_id`) needs the profile and the
 * verification contact; a launch (`launch_requested`) needs the questionnaire. Channels without a
 * service-account key exist only in the service (nothing is asked of the platform) and are not
 * checked.
 */
export function checkAgentRequest(config: Json, state: string, hasKey: boolean): void {
  if (!hasKey) return;
  if (state === 'create_requested' && !filled(config.agent_id)) {
    const why = 'for the service to register the agent (agent_state create_requested)';
    const profile = obj(config.agent_profile);
    requireAll('rbm.agent_profile', profile, ['description', 'logo_url', 'hero_url', 'color', 'billing_category'], why);
    requireAll('rbm.agent_profile.privacy_policy', obj(profile.privacy_policy), ['url'], why);
    requireAll('rbm.agent_profile.terms_and_conditions', obj(profile.terms_and_conditions), ['url'], why);
    if (!filled(profile.phones) && !filled(profile.emails)) {
      throw ApiError.invalid(
        'rbm.agent_profile.phones',
        null,
        `The agent needs a phone number or an e-mail address with a label (rbm.agent_profile.phones or emails): the platform launches no agent without one.`,
      );
    }
    requireAll(
      'rbm.verification_contact',
      obj(config.verification_contact),
      ['partner_name', 'partner_email', 'brand_contact_name', 'brand_contact_email', 'brand_website_url'],
      why,
    );
  }
  if (state === 'launch_requested') {
    const why = 'for the service to ask for the launch (agent_state launch_requested)';
    requireAll(
      'rbm.launch_questionnaire',
      obj(config.launch_questionnaire),
      ['contacts', 'opt_in_description', 'trigger_description', 'interactions_description', 'opt_out_description', 'access_instructions'],
      why,
    );
  }
}
