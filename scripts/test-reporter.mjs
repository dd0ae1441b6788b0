// The test runner's reporter for scripts/run-tests.mjs: one line per test file as it finishes
// ("[N/M] file  (x.x s, elapsed mm:ss)"), each failure in full (with what its file printed), and
// the totals at the end, with the failed tests listed again. Passing tests print nothing of their own, so a
// run over the whole suite stays a page long.
//
// run-tests.mjs tells it, through the environment, how many files the run has
// (PARLEY_TEST_FILE_COUNT) and where the bundled test files are (PARLEY_TEST_BUILD), so lines
// name the source files, not their bundles.
import { relative, sep } from 'node:path';
import { inspect } from 'node:util';

const started = Date.now();
const total = Number(process.env.PARLEY_TEST_FILE_COUNT) || 0;
const bundles = process.env.PARLEY_TEST_BUILD ? `${process.env.PARLEY_TEST_BUILD}${sep}tests${sep}` : null;

/** A test file as the project names it: test/api/channels.test.ts, not its bundle. */
function shown(file) {
  if (!file) return '(no file)';
  if (bundles && file.startsWith(bundles))
    return file
      .slice(bundles.length)
      .replace(/\.mjs$/, '.ts')
      .split(sep)
      .join('/');
  return relative(process.cwd(), file).split(sep).join('/');
}

export const clock = (ms) => {
  const s = Math.floor(ms / 1000);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
};

/** A failure as a reader needs it: the test's path of names, where it is, and the error with its cause. */
function describeFailure(names, data) {
  const error = data.details?.error;
  const cause = error?.cause ?? error;
  const where = data.line ? `${shown(data.file)}:${data.line}:${data.column}` : shown(data.file);
  const exit = [error?.exitCode != null ? `exit code ${error.exitCode}` : '', error?.signal ? `signal ${error.signal}` : ''].filter(Boolean).join(', ');
  const body = typeof cause === 'string' ? `${cause}${exit ? ` (${exit})` : ''}` : inspect(cause, { depth: 6, colors: false });
  return `  ✖ ${names.join(' › ')}\n    at ${where}\n${body.replace(/^/gm, '    ')}\n`;
}

export default async function* progress(source) {
  let done = 0;
  /** Per file: the names of the tests running at each nesting level, what it printed, whether it failed. */
  const files = new Map();
  const of = (file) => {
    let entry = files.get(file);
    if (!entry) files.set(file, (entry = { names: [], output: [], failed: false }));
    return entry;
  };
  const failed = [];
  const counts = {};
  const printed = (file, lines) =>
    lines
      .join('')
      .replace(/\n$/, '')
      .replace(/^/gm, `  | ${shown(file)}: `) + '\n';

  // The runner reports a file's end when its process exits, and may replay the file's own events
  // (its tests, what it printed) only after that, interleaved with other files': so a failure is
  // shown as it arrives, with what its file printed so far, rather than under the file's line.
  for await (const { type, data } of source) {
    if (type === 'test:stdout' || type === 'test:stderr') {
      const entry = of(data.file);
      entry.output.push(data.message);
      if (entry.failed) yield printed(data.file, [data.message]);
    } else if (type === 'test:start') {
      const entry = of(data.file);
      entry.names.length = data.nesting;
      entry.names.push(data.name);
    } else if (type === 'test:fail') {
      // A parent whose subtests failed says only that; the subtests' own failures say why.
      if (data.details?.error?.failureType === 'subtestsFailed') continue;
      const entry = of(data.file);
      if (data.name === data.file) entry.unexplained = undefined;
      const names = data.name === data.file ? ['(the file itself)'] : [...entry.names.slice(0, data.nesting), data.name];
      failed.push(`${shown(data.file)} › ${names.join(' › ')}`);
      let text = describeFailure(names, data);
      if (!entry.failed && entry.output.length) text += printed(data.file, entry.output);
      entry.failed = true;
      yield text;
    } else if (type === 'test:complete' && data.name === data.file) {
      done += 1;
      const ok = data.details?.passed !== false;
      const seconds = ((data.details?.duration_ms ?? 0) / 1000).toFixed(1);
      yield `[${done}/${total || '?'}] ${ok ? '' : 'FAIL '}${shown(data.file)}  (${seconds} s, elapsed ${clock(Date.now() - started)})\n`;
      // A file that failed with no failing test of its own (it did not load, it exited early) is
      // usually told by a failure of the file itself that follows; if none comes, by this.
      if (!ok && data.details?.error?.failureType !== 'subtestsFailed') of(data.file).unexplained = data;
    } else if (type === 'test:diagnostic' && data.nesting === 0) {
      // The run's totals ("tests 212", "pass 210", ...), one diagnostic each.
      const m = /^(tests|suites|pass|fail|cancelled|skipped|todo) (\d+)$/.exec(data.message);
      if (m) counts[m[1]] = Number(m[2]);
      // Anything else said at the top is the runner telling why a file failed outside its tests
      // (an error thrown after its last test ended, say): the only place that reason appears.
      else if (!/^duration_ms [\d.]+$/.test(data.message)) yield `  ! ${data.file ? `${shown(data.file)}: ` : ''}${data.message}\n`;
    }
  }

  for (const [file, entry] of files) {
    if (!entry.unexplained) continue;
    failed.push(`${shown(file)} › (the file itself)`);
    yield describeFailure(['(the file itself)'], entry.unexplained) + (entry.output.length ? printed(file, entry.output) : '');
  }

  const summary = ['tests', 'pass', 'fail', 'cancelled', 'skipped', 'todo']
    .filter((k) => counts[k] !== undefined && (counts[k] > 0 || k === 'tests' || k === 'fail'))
    .map((k) => `${k} ${counts[k]}`)
    .join(', ');
  let text = `\n${done} files, ${summary}\n`;
  if (failed.length) text += `failed:\n${failed.map((f) => `  ${f}`).join('\n')}\n`;
  yield text;
}
