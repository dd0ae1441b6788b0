#!/usr/bin/env node
// `npm run scaleout -- --duration 600`: the scale-out test (test/scale-out) with a longer load.
// Two API and two worker processes on PostgreSQL (PG_TEST_URL, else postgres@127.0.0.1:5432/test),
// the stand-ins as the platforms; the duration is the load's, in seconds (60 when not given).
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { duration: { type: 'string', default: '60' } } });
if (!/^[1-9][0-9]*$/.test(values.duration)) {
  console.error('--duration takes a whole number of seconds');
  process.exit(2);
}
const child = spawn(process.execPath, ['scripts/run-tests.mjs', 'test/scale-out/'], {
  stdio: 'inherit',
  env: { ...process.env, SCALEOUT_DURATION_S: values.duration },
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
