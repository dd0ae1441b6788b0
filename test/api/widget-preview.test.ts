import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { assertErrorBody } from '../helpers/error-format.js';

/** The web chat's preview page (src/api/routes/widget-preview.ts), which the administration app frames. */
for (const { dialect, skip, test } of await dialects({ postgresSmoke: ['the page'] })) {
  describe(`Web chat preview page (${dialect})`, { skip }, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer(dialect);
    });
    after(async () => s?.close());

    test('the page: the one script tag of the channel, open; framed only by this server; public and not counted', async () => {
      const res = await fetch(`${s.origin}/widget/preview/374454364528640`, { headers: { authorization: `Bearer ${s.token}` } });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      const html = await res.text();
      assert.ok(html.includes('<script src="/widget.js" data-channel-id="374454364528640" data-open="true"></script>'), html);
      const csp = res.headers.get('content-security-policy') ?? '';
      assert.match(csp, /frame-ancestors 'self'/);
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /style-src 'self' 'unsafe-inline'/, 'the widget styles its shadow root with a style element');
      assert.equal(res.headers.get('x-frame-options'), 'SAMEORIGIN');
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(res.headers.get('x-ratelimit-limit'), null, 'a public page is not counted');
    });

    test('anything but a channel id is not found, in the error format, and never written into a page', async () => {
      for (const id of ['abc', '0', '1%3Cscript%3Ealert(1)%3C%2Fscript%3E', '12345678901234567']) {
        const res = await fetch(`${s.origin}/widget/preview/${id}`);
        assert.equal(res.status, 404, id);
        const text = await res.text();
        assert.ok(!text.includes('<script'), id);
        assertErrorBody(JSON.parse(text), 404, id);
      }
    });
  });
}
