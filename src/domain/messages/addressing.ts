import { ApiError, say } from '../../lib/errors.js';
import { parseId } from '../../lib/ids.js';
import { toE164 } from '../../lib/phone.js';
import type { ChannelType } from '../../schemas/channel-types.js';
import { CONTACT_FORMS, type ContactForm, type SendMessageBody } from '../../schemas/content.js';
import { capabilitiesOf } from '../../channel-types/index.js';

/**
 * How a Send Message request names its contact, once checked for the channel's type. The form of
 * an e-mail address is `email_address`, so that the word stays the channel type's name alone.
 */
export type ContactAddress =
  | { form: 'id'; id: number | null; raw: string }
  | { form: 'phone_number'; phoneNumber: string; firstName?: string; lastName?: string }
  | { form: 'user_ref'; userRef: string }
  | { form: 'email_address'; email: string; name?: string };

type Contact = SendMessageBody['contact'];

/** Fields that may accompany each form. */
const COMPANIONS: Record<ContactForm, readonly string[]> = {
  id: [],
  phone_number: ['first_name', 'last_name'],
  user_ref: [],
  email: ['name'],
};

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Phone numbers arrive in free format and are kept in E.164. A number without a country code is
 * read in the configured default region; without one it is refused, naming the field.
 */
const parsed = new Map<string, string | null>();

/** Parsing a number costs more than the rest of a send; the same numbers come back again and again. */
function e164Of(text: string, defaultRegion: string | undefined): string | null {
  const key = `${defaultRegion ?? ''}|${text}`;
  const hit = parsed.get(key);
  if (hit !== undefined) return hit;
  const value = toE164(text, defaultRegion);
  if (parsed.size >= 50_000) parsed.clear();
  parsed.set(key, value);
  return value;
}

export function normalisePhone(input: string, field: string, defaultRegion: string | undefined): string {
  // "(+420) 601 123 456": a country code in brackets is still a country code.
  const trimmed = input.trim();
  const text = trimmed.startsWith('(') ? trimmed.replace(/^\(\s*(\+|00)(\d{1,4})\s*\)/, '$1$2') : trimmed;
  const international = text.startsWith('+') || text.startsWith('00');
  if (!international && !defaultRegion) {
    throw ApiError.invalid(
      field,
      input,
      `Property '${field}' has no country code: give the number in international format (e.g. +420601123456); no default region is configured.`,
    );
  }
  const e164 = e164Of(text, defaultRegion);
  if (!e164) throw ApiError.invalid(field, input, `Property '${field}' is not a valid phone number.`);
  return e164;
}

export function parseAddress(type: ChannelType, contact: Contact, defaultRegion: string | undefined): ContactAddress {
  const allowed = capabilitiesOf(type).contactForms;
  const given: ContactForm[] = [];
  for (const f of CONTACT_FORMS) if (contact[f] !== undefined) given.push(f);
  if (given.length === 0) {
    throw ApiError.invalid('contact', contact, `Property 'contact' must name the contact by ${allowed.length > 1 ? 'one of: ' : ''}${allowed.join(', ')}.`);
  }
  if (given.length > 1) {
    throw ApiError.invalid('contact', contact, `Property 'contact' must name the contact in one way only, not by ${given.join(' and ')}.`);
  }
  const form = given[0]!;
  const value = contact[form]!;
  if (!allowed.includes(form)) {
    throw ApiError.invalid(`contact.${form}`, value, `A ${type} channel cannot address a contact by '${form}'; it takes: ${allowed.join(', ')}.`);
  }
  for (const key of Object.keys(contact)) {
    if (key !== form && !COMPANIONS[form].includes(key)) {
      throw ApiError.invalid(
        `contact.${key}`,
        (contact as Record<string, unknown>)[key],
        `${say.notSupported(`contact.${key}`).slice(0, -1)} with 'contact.${form}'.`,
      );
    }
  }
  return READ[form](value, contact, defaultRegion);
}

/** How each form of the request (by its field name) becomes an address. */
const READ: Record<ContactForm, (value: string, contact: Contact, defaultRegion: string | undefined) => ContactAddress> = {
  id: (value) => ({ form: 'id', id: parseId(value), raw: value }),
  phone_number: (value, contact, defaultRegion) => ({
    form: 'phone_number',
    phoneNumber: normalisePhone(value, 'contact.phone_number', defaultRegion),
    ...(contact.first_name ? { firstName: contact.first_name } : {}),
    ...(contact.last_name ? { lastName: contact.last_name } : {}),
  }),
  user_ref: (value) => ({ form: 'user_ref', userRef: value }),
  email: (value, contact) => {
    const email = value.trim().toLowerCase();
    if (!EMAIL.test(email)) throw ApiError.invalid('contact.email', value, `Property 'contact.email' is not a valid e-mail address.`);
    return { form: 'email_address', email, ...(contact.name ? { name: contact.name } : {}) };
  },
};
