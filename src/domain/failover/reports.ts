import type { Clock } from '../../lib/clock.js';
import type { Repos } from '../../store/store.js';
import type { EventInput } from '../events/outbox.js';

type Entry = Record<string, unknown>;

function idsOf(entries: unknown): number[] {
  if (!Array.isArray(entries)) return [];
  return entries.map((e) => Number((e as Entry).id)).filter((n) => Number.isSafeInteger(n));
}

/**
 * What a report on a message (its `messages_delivered`, `message_failed` or `messages_read`)
 * means for a failover chain, in the report's own transaction: the steps' messages named get the
 * link to their chain (`failover`: the first message's id and the step), and the chains' jobs
 * become due now, to move on or stop. Messages sent without fallbacks have no step row: one
 * indexed read finds none and nothing changes.
 */
export function failoverReports(clock: Clock): (tx: Repos, input: EventInput) => Promise<EventInput> {
  return async (tx, input) => {
    if (input.type === 'messages_read') {
      if (input.contactId !== null) await tx.failovers.poke(await tx.failovers.openOfContact(Number(input.contactId)), clock.now());
      return input;
    }
    if (input.type !== 'messages_delivered' && input.type !== 'message_failed') return input;
    const data = input.data;
    const named = input.type === 'message_failed' ? [data.message as Entry] : ((data.messages as Entry[] | undefined) ?? []);
    const links = await tx.failovers.linksOf(idsOf(named));
    if (links.length === 0) return input;
    await tx.failovers.poke([...new Set(links.map((l) => l.failover_id))], clock.now());
    const linked = named.map((entry) => {
      const link = links.find((l) => String(l.message_id) === String(entry.id));
      return link ? { ...entry, failover: { message_id: String(link.failover_id), step: link.step } } : entry;
    });
    return { ...input, data: input.type === 'message_failed' ? { ...data, message: linked[0] } : { ...data, messages: linked } };
  };
}
