/** The "NLP on received text" section of docs/benchmarks.md, written from the results of bench/nlp/run.ts. */

const name = (d: string) => (d === 'sqlite' ? 'SQLite' : 'PostgreSQL');
const pct = (share: number) => `${Math.round(share * 1000) / 10}%`;
const ms = (n: number) => `${n} ms`;
const signed = (n: number, decimals = 1) => `${n >= 0 ? '+' : ''}${Math.round(n * 10 ** decimals) / 10 ** decimals} ms`;

/** `x` over channel B's `y`, its same-run baseline; '?' when either is missing or B's is zero. */
const ratio = (x: number | null | undefined, y: number | null | undefined) => (x == null || !y ? '?' : (x / y).toFixed(2));

/** A phase's row; `b` is channel B's phase of the same store, the baseline its ratios are to. */
function phaseRow(store: string, label: string, r: any, b: any): string {
  if (!r) return `| ${name(store)} | ${label} | not measured | | | | | | | | | | | | | | | |`;
  const answered = `${r.statuses['200'] ?? 0} of ${r.sent}`;
  const nlp = label.startsWith('A') ? `${r.withNlp} of ${r.arrived}` : `${r.withNlp}`;
  const callback = `${ms(r.callbackMs.p50)} | ${ms(r.callbackMs.p95)} | **${ms(r.callbackMs.p99)}** | ${ratio(r.callbackMs.p99, b?.callbackMs.p99)} | ${ms(r.callbackMs.max)}`;
  const endToEnd = `${ms(r.endToEndMs.p50)} | ${ms(r.endToEndMs.p95)} | **${ms(r.endToEndMs.p99)}** | ${ratio(r.endToEndMs.p99, b?.endToEndMs.p99)}`;
  const cpu = `${r.serverCpuMsPerMessage ?? '?'} ms | ${ratio(r.serverCpuMsPerMessage, b?.serverCpuMsPerMessage)}`;
  return `| ${name(store)} | ${label} | ${r.offeredRate}/s | ${r.achievedRate}/s | ${answered} | ${callback} | ${endToEnd} | ${nlp} | ${cpu} | ${r.loadAverage} |`;
}

/** Which slowest value the p99 of `n` values is (the percentile of load.ts: the ceil(0.99 n)-th smallest). */
function rankOfP99(n: number): string {
  const k = n - Math.ceil(0.99 * n) + 1;
  const suffix = k % 10 === 1 && k % 100 !== 11 ? 'st' : k % 10 === 2 && k % 100 !== 12 ? 'nd' : k % 10 === 3 && k % 100 !== 13 ? 'rd' : 'th';
  return `${k}${suffix}`;
}

export function docsSection(results: Record<string, any>): string {
  const stores = (['sqlite', 'postgres'] as const).filter((d) => results.stores[d]);
  const measured = Number(results.stores[stores[0] ?? '']?.builtin?.measured ?? 0);
  const s = results.settings;
  const phases = stores.flatMap((d) => {
    const r = results.stores[d];
    if (r.error) return [`| ${name(d)} | ${r.error} | | | | | | | | | | | | | | | | |`];
    return [phaseRow(d, 'B, no NLP', r.baseline, r.baseline), phaseRow(d, 'A, built-in', r.builtin, r.baseline)];
  });
  const added = stores
    .filter((d) => !results.stores[d].error)
    .map((d) => {
      const a = results.stores[d].addedMs;
      const cpu = a.serverCpuPerMessage === null ? '?' : signed(a.serverCpuPerMessage, 2);
      return `| ${name(d)} | ${signed(a.callback.p50)} | **${signed(a.callback.p99)}** | ${signed(a.endToEnd.p50)} | **${signed(a.endToEnd.p99)}** | ${cpu} |`;
    });
  const facts: string[] = [];
  for (const d of stores) {
    const r = results.stores[d];
    if (r.error) continue;
    const both = [r.baseline, r.builtin];
    const clean = both.every((p: any) => p.errors === 0 && p.missing === 0 && p.complete) && r.duplicates === 0;
    facts.push(
      `- ${name(d)}: ${clean ? 'every update answered 200 and its event arrived once' : `errors ${both.map((p: any) => p.errors).join(' / ')}, events missing ${both.map((p: any) => p.missing).join(' / ')}, delivered twice ${r.duplicates} (B / A)`}; ` +
        `channel A's events with nlp ${pct(r.builtin.nlpShare)} (${r.builtin.withoutNlp} without; the engine timed out ${r.server?.nlpStats?.timedOut ?? '?'} times and failed ${r.server?.nlpStats?.failed ?? '?'} times in the run); ` +
        `the held-out phrase's intent ranked first in ${pct(r.builtin.topIntentShare)} (English ${pct(r.builtin.topIntentShareByLanguage?.en ?? 0)}, Spanish ${pct(r.builtin.topIntentShareByLanguage?.es ?? 0)}); ` +
        `the model trained in ${Math.round(r.trainingMs / 100) / 10} s (from PUT to \`ready\`); the service's memory at the end ${r.server?.memoryMb?.rss ?? '?'} MB.`,
    );
  }
  return [
    '## NLP on received text',
    '',
    `\`npm run bench -- nlp\` (bench/nlp/) — measured ${results.date} on ${results.machine.cpus} cores (${results.machine.cpuModel}), Node ${results.machine.node}; load average ${results.machine.loadAverageAtStart} at start.`,
    'The service runs in its own process (API, webhook worker and jobs worker, default settings, node --max-semi-space-size=32 as npm start) with a botmsg stand-in',
    'in the same process, used only to create the channels. Two botmsg channels, each with a webhook to a receiver in',
    `the load's process: channel A with a built-in NLP integration (${s.model.intents} intents in English and Spanish, ${s.model.utterances} example phrases;`,
    "trained before the load starts), channel B without. The load posts botmsg updates straight to a channel's inbound URL",
    "with the platform's secret-token header, as the platform does: open loop at a fixed offered rate, for",
    `${s.seconds} s after a ${s.warmupSeconds} s warm-up, first to B (the baseline), then to A, on the same server. Each update is a new message`,
    `from one of ${s.users} users (their contacts made before the load) whose text is one of ${s.model.heldOut} phrases the model never saw, half`,
    'English, half Spanish, followed by a reference number (`#1234`) that makes every text new: the engine keeps the',
    'words of each text it prepared, and real messages rarely repeat; a number is no word of the training phrases, so',
    `it does not move the classification. The NLP time budget is ${s.timeBudgetMs} ms.`,
    '',
    "**Callback** is the platform's view: from the request's start to the service's 200, which comes after the message",
    "and its `message_received` event are stored, so after the classification. **End to end** is from the request's",
    "start to the event's arrival at the receiver (the commit, waking the webhook worker, signing, the HTTP call).",
    "Server CPU is the service process's CPU time over the measured seconds per message. Channel B, on the same",
    "server just before, is the same-run baseline of channel A: each ratio is the figure over channel B's.",
    '',
    '| Store | Channel | Offered | Achieved | Answered 200 | Callback p50 | p95 | p99 | Ratio to B | max | End to end p50 | p95 | p99 | Ratio to B | Events with nlp | Server CPU per message | Ratio to B | Load average at start |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...phases,
    '',
    '**Added latency** of the built-in engine: channel A minus channel B.',
    '',
    '| Store | Callback p50 | Callback p99 | End to end p50 | End to end p99 | Server CPU per message |',
    '|---|---|---|---|---|---|',
    ...added,
    '',
    ...facts,
    '',
    `The engine's own cost shows in the server CPU per message. Each p99 is the ${rankOfP99(measured)} slowest of ${measured} messages in one`,
    'run: on this shared machine it moves by more than a few milliseconds from one run to the next.',
    '',
    ...(results.notes ?? []),
    ...(results.notes?.length ? [''] : []),
    'The intent share is a sanity check of the model in use, not a target: the phrases are new to it, and the engine',
    "guesses a short text's language from few letters.",
    '',
    'Raw figures: `bench/results/nlp.json`. The machine is shared: a load average above 1 means other work ran during',
    'the measurement, which raises every latency.',
    '',
  ].join('\n');
}
