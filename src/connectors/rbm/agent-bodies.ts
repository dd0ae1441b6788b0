import { HOSTING_REGIONS } from './options.js';

/**
 * The management API's request bodies made from the channel's configuration (the fields the
 * channel type collects, validated there when the client asks for the agent or its launch):
 * - `brands.agents.create`: the display name and the product's agent object (description, logo,
 *   hero image, color, billing category, use case, privacy policy, terms, phones, e-mails,
 *   websites with their labels, the hosting region);
 * - `:requestVerification`: the verification contact;
 * - `:requestLaunch`: the questionnaire with the launch details by region.
 * Absent fields are left out: the platform names what it misses in its answer.
 */
type Json = Record<string, unknown>;

const obj = (value: unknown): Json => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
const arr = (value: unknown): Json[] => (Array.isArray(value) ? value.map(obj) : []);
const strs = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/** Only the keys whose values are set. */
function compact(record: Json): Json {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined && v !== ''));
}

const upper = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value.toUpperCase() : undefined);

function webEntry(entry: Json): Json {
  return compact({ uri: entry.url, label: entry.label });
}

export function agentBody(config: Json, productKey: string): Json {
  const profile = obj(config.agent_profile);
  const product = compact({
    description: profile.description,
    logoUri: profile.logo_url,
    heroUri: profile.hero_url,
    phoneNumbers: profile.phones === undefined ? undefined : arr(profile.phones).map((p) => compact({ phoneNumber: { number: p.number }, label: p.label })),
    emails: profile.emails === undefined ? undefined : arr(profile.emails).map((e) => compact({ address: e.address, label: e.label })),
    websites: profile.websites === undefined ? undefined : arr(profile.websites).map(webEntry),
    privacy: profile.privacy_policy === undefined ? undefined : webEntry(obj(profile.privacy_policy)),
    termsConditions: profile.terms_and_conditions === undefined ? undefined : webEntry(obj(profile.terms_and_conditions)),
    color: profile.color,
    billingConfig: profile.billing_category === undefined ? undefined : { billingCategory: upper(profile.billing_category) },
    agentUseCase: upper(profile.use_case),
    hostingRegion: HOSTING_REGIONS[String(config.region)] ?? HOSTING_REGIONS.europe,
  });
  return { displayName: typeof config.agent_name === 'string' ? config.agent_name : 'Agent', [`${productKey}Agent`]: product };
}

export function verificationBody(config: Json): Json {
  const contact = obj(config.verification_contact);
  return {
    agentVerificationContact: compact({
      partnerName: contact.partner_name,
      partnerEmailAddress: contact.partner_email,
      brandContactName: contact.brand_contact_name,
      brandContactEmailAddress: contact.brand_contact_email,
      brandWebsiteUrl: contact.brand_website_url,
    }),
  };
}

export function questionnaireOf(config: Json): Json {
  const q = obj(config.launch_questionnaire);
  return compact({
    contacts: arr(q.contacts).map((c) => compact({ name: c.name, title: c.title, email: c.email })),
    optinDescription: q.opt_in_description,
    triggerDescription: q.trigger_description,
    interactionsDescription: q.interactions_description,
    optoutDescription: q.opt_out_description,
    agentAccessInstructions: q.access_instructions,
    videoUris: q.video_urls === undefined ? undefined : strs(q.video_urls),
    screenshotUris: q.screenshot_urls === undefined ? undefined : strs(q.screenshot_urls),
  });
}

/** The first launch: the questionnaire and the regions to launch in (keys `/v1/regions/<id>`, as the platform lists them). */
export function launchBody(config: Json, productKey: string, regions: readonly string[]): Json {
  const launchDetails = Object.fromEntries(regions.map((name) => [name, {}]));
  return { agentLaunch: { [productKey]: { questionnaire: questionnaireOf(config), launchDetails } } };
}
