import { asArray, asRecord, isRecord, optString, type JsonRecord } from '../shared/values.js';
import { invalidArgument } from './errors.js';

// What the management API requires of an agent, its verification request and its launch request,
// as the public reference marks the fields (Required / Optional), with its INVALID_ARGUMENT answer.

export const HOSTING_REGIONS = ['NORTH_AMERICA', 'EUROPE', 'ASIA_PACIFIC'];
/** The current categories and the two the official sample still sends (consolidated since into NON_CONVERSATIONAL). */
export const BILLING_CATEGORIES = ['CONVERSATIONAL', 'NON_CONVERSATIONAL', 'BASIC_MESSAGE', 'SINGLE_MESSAGE'];
export const AGENT_USE_CASES = ['TRANSACTIONAL', 'PROMOTIONAL', 'OTP', 'MULTI_USE'];

const DISPLAY_NAME_MAX = 100;
const DESCRIPTION_MAX = 100;
const WEBSITES_MAX = 3;

const required = (where: string): never => {
  throw invalidArgument(`Invalid value at '${where}': a required field is missing.`);
};

function text(record: JsonRecord, key: string, where: string): string {
  const value = optString(record[key])?.trim() ?? '';
  return value === '' ? required(`${where}.${key}`) : value;
}

function httpUrl(value: string, where: string): void {
  if (!/^https?:\/\/\S+$/i.test(value)) throw invalidArgument(`Invalid value at '${where}': must be an HTTP or HTTPS URL.`);
}

/** A web entry `{uri, label}`; the label is optional on the privacy policy and the terms, required on websites. */
function webEntry(raw: unknown, where: string, labelRequired: boolean): void {
  if (!isRecord(raw)) required(where);
  const entry = asRecord(raw);
  httpUrl(text(entry, 'uri', where), `${where}.uri`);
  if (labelRequired) text(entry, 'label', where);
}

function list(raw: unknown, where: string): unknown[] {
  if (raw === undefined) return [];
  const items = asArray(raw);
  if (!items) throw invalidArgument(`Invalid value at '${where}': must be a list.`);
  return items;
}

/** `brands.agents.create`: the agent and the product's agent object under `<productKey>Agent`. */
export function checkNewAgent(body: JsonRecord, productKey: string): { displayName: string; hostingRegion: string; profile: JsonRecord } {
  const displayName = text(body, 'displayName', 'agent');
  if (displayName.length > DISPLAY_NAME_MAX) throw invalidArgument(`Invalid value at 'agent.display_name': at most ${DISPLAY_NAME_MAX} characters.`);
  const key = `${productKey}Agent`;
  if (!isRecord(body[key])) required(`agent.${key}`);
  const product = asRecord(body[key]);
  const where = `agent.${key}`;
  const description = text(product, 'description', where);
  if (description.length > DESCRIPTION_MAX) throw invalidArgument(`Invalid value at '${where}.description': at most ${DESCRIPTION_MAX} characters.`);
  httpUrl(text(product, 'logoUri', where), `${where}.logoUri`);
  httpUrl(text(product, 'heroUri', where), `${where}.heroUri`);
  if (!/^#[0-9A-Fa-f]{6}$/.test(text(product, 'color', where))) throw invalidArgument(`Invalid value at '${where}.color': a hex color such as #FF6347.`);
  webEntry(product.privacy, `${where}.privacy`, false);
  webEntry(product.termsConditions, `${where}.termsConditions`, false);
  const billing = asRecord(product.billingConfig);
  if (!isRecord(product.billingConfig)) required(`${where}.billingConfig`);
  const category = text(billing, 'billingCategory', `${where}.billingConfig`);
  if (!BILLING_CATEGORIES.includes(category)) throw invalidArgument(`Invalid value at '${where}.billingConfig.billingCategory': ${category}.`);
  const useCase = optString(product.agentUseCase);
  if (useCase !== undefined && !AGENT_USE_CASES.includes(useCase)) throw invalidArgument(`Invalid value at '${where}.agentUseCase': ${useCase}.`);
  const hostingRegion = text(product, 'hostingRegion', where);
  if (!HOSTING_REGIONS.includes(hostingRegion)) throw invalidArgument(`Invalid value at '${where}.hostingRegion': one of ${HOSTING_REGIONS.join(', ')}.`);
  // Every phone, e-mail or website given carries its label.
  list(product.phoneNumbers, `${where}.phoneNumbers`).forEach((raw, i) => {
    const p = `${where}.phoneNumbers[${i}]`;
    const entry = asRecord(raw);
    const number = text(asRecord(entry.phoneNumber), 'number', `${p}.phoneNumber`);
    if (!/^\+\d{6,15}$/.test(number)) throw invalidArgument(`Invalid value at '${p}.phoneNumber.number': E.164, e.g. +12223334444.`);
    text(entry, 'label', p);
  });
  list(product.emails, `${where}.emails`).forEach((raw, i) => {
    const p = `${where}.emails[${i}]`;
    const entry = asRecord(raw);
    if (!/^[^@\s]+@[^@\s]+$/.test(text(entry, 'address', p))) throw invalidArgument(`Invalid value at '${p}.address': an e-mail address.`);
    text(entry, 'label', p);
  });
  const websites = list(product.websites, `${where}.websites`);
  if (websites.length > WEBSITES_MAX) throw invalidArgument(`Invalid value at '${where}.websites': at most ${WEBSITES_MAX}.`);
  websites.forEach((raw, i) => webEntry(raw, `${where}.websites[${i}]`, true));
  return { displayName, hostingRegion, profile: product };
}

/** `agents/{a}:requestVerification`: every field of the verification contact is required. */
export function checkVerificationContact(body: JsonRecord): void {
  const where = 'agent_verification_contact';
  if (!isRecord(body.agentVerificationContact)) required(where);
  const contact = asRecord(body.agentVerificationContact);
  for (const key of ['partnerName', 'brandContactName']) text(contact, key, where);
  for (const key of ['partnerEmailAddress', 'brandContactEmailAddress']) {
    if (!/^[^@\s]+@[^@\s]+$/.test(text(contact, key, where))) throw invalidArgument(`Invalid value at '${where}.${key}': an e-mail address.`);
  }
  httpUrl(text(contact, 'brandWebsiteUrl', where), `${where}.brandWebsiteUrl`);
}

/** `agents/{a}:requestLaunch`: the questionnaire with its required answers (videos and screenshots are optional). */
export function checkQuestionnaire(product: JsonRecord, productKey: string): void {
  const where = `agent_launch.${productKey}.questionnaire`;
  if (!isRecord(product.questionnaire)) required(where);
  const q = asRecord(product.questionnaire);
  const contacts = list(q.contacts, `${where}.contacts`);
  if (contacts.length === 0) required(`${where}.contacts`);
  contacts.forEach((raw, i) => {
    const p = `${where}.contacts[${i}]`;
    const contact = asRecord(raw);
    text(contact, 'name', p);
    if (!/^[^@\s]+@[^@\s]+$/.test(text(contact, 'email', p))) throw invalidArgument(`Invalid value at '${p}.email': an e-mail address.`);
  });
  for (const key of ['optinDescription', 'triggerDescription', 'interactionsDescription', 'optoutDescription', 'agentAccessInstructions']) text(q, key, where);
  for (const key of ['videoUris', 'screenshotUris']) list(q[key], `${where}.${key}`).forEach((u, i) => httpUrl(optString(u) ?? '', `${where}.${key}[${i}]`));
}

/** For a launch the agent has at least one phone or e-mail contact. */
export function hasContact(profile: JsonRecord): boolean {
  return (asArray(profile.phoneNumbers)?.length ?? 0) > 0 || (asArray(profile.emails)?.length ?? 0) > 0;
}
