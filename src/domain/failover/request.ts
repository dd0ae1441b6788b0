import { ApiError, say } from '../../lib/errors.js';
import type { ConnectorRegistry } from '../../connectors/connector.js';
import { definitionOf } from '../../channel-types/index.js';
import type { Content, Metadata, SendMessageBody } from '../../schemas/content.js';
import type { Channel } from '../channels/view.js';
import { parseAddress, type ContactAddress } from '../messages/addressing.js';
import { checkCapabilities, checkMetadata } from '../messages/channel-rules.js';
import { parseContent } from '../messages/request.js';
import { checkModeRules, sendingPath } from '../messages/sending.js';
import type { PlannedStep } from './plan.js';

type Fallback = NonNullable<SendMessageBody['fallbacks']>[number];

export interface FallbackCheckDeps {
  connectors: ConnectorRegistry;
  defaultRegion: string | undefined;
  /** The account's channel named by a request (422 naming `channel.id` when there is none). */
  channelOf(raw: string): Promise<Channel>;
  /** Files the platform will be sent, checked now (ApiError when refused). */
  checkFiles(channel: Channel, content: Content): Promise<void>;
}

/** The first step as Send Message checked it, and what is known of its contact. */
export interface FirstStep {
  channel: Channel;
  content: Content;
  metadata: Metadata | undefined;
  address: ContactAddress;
  contact: { phone_number: string | null; email: string | null };
}

/** Runs `check` with every field of its validation errors under `prefix` (a step of `fallbacks`). */
async function under<T>(prefix: string, check: () => T | Promise<T>, note = ''): Promise<T> {
  try {
    return await check();
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'validation') throw error;
    throw new ApiError(
      'validation',
      error.details.map((d) => ({ ...d, ...(d.field ? { field: `${prefix}.${d.field}` } : {}), message: `${d.message}${note}` })),
    );
  }
}

/** The contact of a step that names none: the phone number or e-mail address known so far, in a form the type takes. */
function defaultContact(channel: Channel, known: { phone_number: string | null; email: string | null }): SendMessageBody['contact'] | null {
  const forms: readonly string[] = definitionOf(channel.type).capabilities.contactForms;
  // Each candidate is a contact in one form, named by its one key (the request's field).
  const candidates: Array<SendMessageBody['contact']> = [];
  if (known.phone_number) candidates.push({ phone_number: known.phone_number });
  if (known.email) candidates.push({ email: known.email });
  return candidates.find((c) => forms.includes(Object.keys(c)[0]!)) ?? null;
}

/**
 * The fallbacks of a Send Message, each checked now as its own Send Message would be (channel,
 * condition, content, metadata, contact, mode), so that nothing a later channel cannot carry is
 * found at send time: a 422 names the step (`fallbacks[i]`) and the field.
 */
export async function checkFallbacks(fallbacks: readonly Fallback[], first: FirstStep, deps: FallbackCheckDeps): Promise<PlannedStep[]> {
  const known = { phone_number: first.contact.phone_number, email: first.contact.email };
  let before = { channel: first.channel, content: first.content, metadata: first.metadata };
  const steps: PlannedStep[] = [];
  for (const [i, step] of fallbacks.entries()) {
    const prefix = `fallbacks[${i}]`;
    const channel = await under(prefix, () => deps.channelOf(step.channel.id));
    if (step.when === 'failed' && step.within !== undefined) {
      throw ApiError.invalid(`${prefix}.within`, step.within, `Property '${prefix}.within' goes with 'not_delivered' or 'not_read' only.`);
    }
    if (step.when !== 'failed' && step.within === undefined) throw ApiError.invalid(`${prefix}.within`, null, say.missing(`${prefix}.within`));
    if (step.when === 'not_read' && !definitionOf(before.channel.type).reportsRead) {
      throw ApiError.invalid(
        `${prefix}.when`,
        step.when,
        `A ${before.channel.type} channel does not report reads: the step before cannot move on when 'not_read'; use 'not_delivered'.`,
      );
    }
    const content = step.content ? await under(prefix, () => parseContent(step.content, deps.defaultRegion)) : before.content;
    const metadata = step.metadata ?? before.metadata;
    const inherited = step.content ? '' : ` (the content of the step before; give '${prefix}.content' of its own)`;
    await under(prefix, () => checkCapabilities(channel.type, content, metadata), inherited);
    await under(prefix, () => checkMetadata(channel.type, metadata));
    const contact = step.contact ?? defaultContact(channel, known);
    if (!contact) {
      throw ApiError.invalid(
        `${prefix}.contact`,
        null,
        `${say.missing(`${prefix}.contact`)} No phone number or e-mail address named so far addresses a ${channel.type} contact (it takes: ${definitionOf(channel.type).capabilities.contactForms.join(', ')}).`,
      );
    }
    const address = await under(prefix, () => parseAddress(channel.type, contact, deps.defaultRegion));
    const path = sendingPath(channel, deps.connectors);
    if (path === 'direct' || path === 'unavailable') {
      throw ApiError.invalid(
        `${prefix}.channel.id`,
        step.channel.id,
        `A fallback step is sent by the send worker: ${path === 'direct' ? `${channel.type} channels send inside the request` : `${channel.type} channels cannot send in this service`}; use an asynchronous channel.`,
      );
    }
    await under(prefix, () => checkModeRules(channel, address));
    if (path === 'queued') await under(prefix, () => deps.checkFiles(channel, content), inherited);
    if (address.form === 'phone_number') known.phone_number ??= address.phoneNumber;
    if (address.form === 'email_address') known.email ??= address.email;
    steps.push({
      channel_id: channel.id,
      channel_type: channel.type,
      when: step.when,
      within_ms: step.within === undefined ? null : step.within * 1000,
      contact,
      content,
      metadata: metadata ?? null,
    });
    before = { channel, content, metadata };
  }
  return steps;
}
