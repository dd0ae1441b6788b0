import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { startTestServer, type TestServer } from '../helpers/runtime.js';

const run = promisify(execFile);
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** A program a client developer would write against the generated types: it must compile as is. */
const PROGRAM = `import createClient from 'openapi-fetch';
import type { components, paths } from './api.js';

const [baseUrl, token] = process.argv.slice(2);
const client = createClient<paths>({ baseUrl, headers: { Authorization: \`Bearer \${token}\` } });

const created = await client.POST('/channels', {
  body: {
    type: 'mobile',
    name: 'Order updates (test)',
    mode: 'test',
    provider: { type: 'smsprovider', sender_id: 'Parley', access_token: 'provider-key', signing_key: 'provider-signing-key' },
  },
});
if (!created.data) throw new Error(\`create channel: \${created.response.status} \${JSON.stringify(created.error)}\`);
const channel: components['schemas']['Channel'] = created.data;

const sent = await client.POST('/messages', {
  params: { header: { 'Idempotency-Key': 'generated-client-1' } },
  body: { channel: { id: channel.id }, contact: { phone_number: '+1 202 555 0143' }, content: { type: 'text', payload: 'Your order has shipped.' } },
});
if (!sent.data) throw new Error(\`send message: \${sent.response.status} \${JSON.stringify(sent.error)}\`);
const message: components['schemas']['Message'] = sent.data;

const read = await client.GET('/messages/{message_id}', { params: { path: { message_id: message.id } } });
console.log(JSON.stringify({
  channel: { id: channel.id, mode: channel.mode },
  status: sent.response.status,
  location: sent.response.headers.get('location'),
  message,
  read: read.data ?? null,
}));
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: true,
    noEmitOnError: true,
    lib: ['ES2023', 'DOM'],
    types: ['node'],
    outDir: 'out',
  },
  files: ['main.ts', 'api.d.ts'],
};

describe('A client generated from the OpenAPI document', () => {
  let s: TestServer;
  let dir: string;
  before(async () => {
    s = await startTestServer('sqlite');
    dir = mkdtempSync(join(tmpdir(), 'parley-openapi-client-'));
    // The generated program resolves its packages (and the node types) from the project's.
    symlinkSync(resolve('node_modules'), join(dir, 'node_modules'), 'dir');
  });
  after(async () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    await s?.close();
  });

  test('compiles with a small program and sends a message through the running server', { timeout: 180_000 }, async () => {
    const documentUrl = `${s.origin}/v1/openapi.json`;
    const document = (await (await fetch(documentUrl)).json()) as { servers: Array<{ url: string }> };
    const types = astToString(await openapiTS(document as never));
    writeFileSync(join(dir, 'api.d.ts'), types);
    writeFileSync(join(dir, 'main.ts'), PROGRAM);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));

    const compiled = await run(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { cwd: dir, timeout: 120_000 }).catch(
      (error: { stdout?: string; message: string }) => {
        assert.fail(`the generated client does not compile:\n${error.stdout ?? error.message}`);
      },
    );
    assert.equal(compiled.stderr, '');

    // The base address is the document's own servers entry, resolved where the document was read.
    const baseUrl = new URL(document.servers[0]!.url, documentUrl).href;
    const { stdout } = await run(process.execPath, [join(dir, 'out', 'main.js'), baseUrl, s.token], { cwd: dir, timeout: 30_000 });
    const out = JSON.parse(stdout) as {
      channel: { id: string; mode: string };
      status: number;
      location: string;
      message: Record<string, any>;
      read: Record<string, any> | null;
    };

    assert.equal(out.channel.mode, 'test');
    assert.equal(out.status, 201);
    assert.equal(out.location, `${s.baseUrl}/messages/${out.message.id}`);
    assert.equal(out.message.direction, 'sent');
    assert.deepEqual(out.message.channel, { id: out.channel.id, type: 'mobile' });
    assert.equal(out.message.contact.phone_number, '+12025550143');
    assert.deepEqual(out.message.content, { type: 'text', payload: 'Your order has shipped.' });
    assert.equal(out.read?.id, out.message.id);

    const listed = await s.api.get(`/v1/channels/${out.channel.id}/contacts/${out.message.contact.id}/messages`);
    assert.deepEqual(
      listed.body.map((m: { id: string }) => m.id),
      [out.message.id],
    );
  });
});
