import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Route } from 'playwright-core';
import { dialects } from '../helpers/databases.js';
import { Receiver } from '../helpers/receiver.js';
import { checkAccessibility, chromiumMissing, type AdminPage } from '../helpers/admin-browser.js';
import { adminSuite } from '../helpers/admin-suite.js';

// The NLP tab as its user works it: a built-in integration connected with two intents in two
// languages (refused first at the fields the API names), queued until a worker trains it (a
// phrase tried meanwhile is refused), then ready by itself; a phrase tried in each language; a
// change that trains a new version while the older model serves; removal. An external NLU server
// connected with a write-only token that is shown only as set, used by a tried phrase, and cleared.

const browserSkip = chromiumMissing();
const BUILTIN = 'built-in: connected through the tab, trained, tried in two languages, retrained and removed';

const ORDER_EN = ['where is my order', 'when will my package arrive', 'track my order', 'has my parcel shipped yet'];
const ORDER_ES = ['dónde está mi pedido', 'cuándo llega mi paquete', 'quiero seguir mi pedido', 'ya salió mi envío'];
const GREET_EN = ['hello', 'hi there', 'good morning', 'hey, how are you'];
const GREET_ES = ['hola', 'buenos días', 'qué tal', 'buenas tardes'];

for (const { dialect, skip, test } of await dialects({ postgresSmoke: [BUILTIN] })) {
  describe(`Admin app: the channel NLP tab in Chromium (${dialect})`, { skip: skip || browserSkip }, () => {
    // No workers yet: the first training stays queued until the test starts them.
    const admin = adminSuite(dialect, { env: { NLP_ALLOWLIST: '127.0.0.1,localhost,::1' } });
    let nlu: Receiver;
    before(async () => {
      nlu = await Receiver.start();
    });
    after(async () => {
      await nlu?.close();
    });

    async function webChat(name: string): Promise<string> {
      const res = await admin.s.api.post('/v1/channels', { type: 'service_chat', name });
      assert.equal(res.status, 201, res.text);
      return res.body.id as string;
    }

    const scope = (a: AdminPage, testId: string) => a.page.getByTestId(testId);
    const fieldError = (a: AdminPage, within: ReturnType<AdminPage['page']['locator']>, label: string | RegExp) =>
      within
        .locator('.field')
        .filter({ has: a.page.getByLabel(label) })
        .locator('.field-error');
    const phrasesIn = (a: AdminPage, intent: number, code: string) =>
      scope(a, `nlp-intent-${intent}`).getByLabel(new RegExp(`^Example phrases in .*\\(${code}\\)$`));

    async function addLanguage(a: AdminPage, name: string, code: string): Promise<void> {
      await a.page.getByRole('combobox', { name: 'Add a language' }).fill(name);
      await a.page.getByRole('option', { name: new RegExp(`\\(${code}\\)$`) }).click();
      await a.page
        .getByRole('list', { name: 'Chosen languages' })
        .getByText(new RegExp(`\\(${code}\\)$`))
        .waitFor();
    }

    /** The intents the Try box ranks for a phrase (it drops its last answer as the new one is asked). */
    async function tryPhrase(a: AdminPage, text: string): Promise<string[]> {
      await a.page.getByLabel('Phrase', { exact: true }).fill(text);
      await a.page.getByRole('button', { name: 'Classify' }).click();
      const ranking = scope(a, 'nlp-try-result').getByRole('list', { name: 'Intents, most likely first' });
      await ranking.waitFor();
      return ranking.getByRole('listitem').allTextContents();
    }

    test(BUILTIN, async () => {
      const id = await webChat('Shop chat');
      const a = await admin.open(admin.owner);
      await a.goto(`/admin/channels/${id}/nlp`);
      await a.page.getByText(/^Not connected: received texts of this channel go out without intents/).waitFor();
      await a.page.getByText('Built-in (trained here)').click();
      await a.page.getByRole('button', { name: 'Connect', exact: true }).click();

      // English, Spanish, and Latin, which the built-in engine cannot learn.
      await addLanguage(a, 'English', 'en');
      await addLanguage(a, 'Spanish', 'es');
      await addLanguage(a, 'Latin', 'la');
      await scope(a, 'nlp-intent-1').getByLabel('Intent id').fill('order status');
      await phrasesIn(a, 1, 'en').fill(ORDER_EN.join('\n'));
      await phrasesIn(a, 1, 'es').fill(`${ORDER_ES.join('\n')}\n\n`);
      await a.page.getByRole('button', { name: 'Add intent' }).click();
      await scope(a, 'nlp-intent-2').getByLabel('Intent id').fill('greeting');
      await phrasesIn(a, 2, 'en').fill(GREET_EN.join('\n'));
      await phrasesIn(a, 2, 'es').fill(GREET_ES.join('\n'));
      await phrasesIn(a, 2, 'la').fill('salve');

      // The schema refuses the id with a space: shown at that intent's id.
      await a.page.getByRole('button', { name: 'Connect and train' }).click();
      await fieldError(a, scope(a, 'nlp-intent-1'), 'Intent id')
        .getByText(/intents\[0\]\.id/)
        .waitFor();
      await a.page.getByText('Not saved: one field breaks a rule (marked below).').waitFor();
      assert.equal(await fieldError(a, scope(a, 'nlp-intent-2'), 'Intent id').count(), 0);
      assert.equal((await admin.s.api.get(`/v1/channels/${id}/nlp`)).status, 404, 'nothing was saved');

      // Then the service refuses Latin: shown under the languages.
      await scope(a, 'nlp-intent-1').getByLabel('Intent id').fill('order_status');
      await a.page.getByRole('button', { name: 'Connect and train' }).click();
      await scope(a, 'nlp-languages')
        .locator('.field-error')
        .getByText(/'la' is not supported/)
        .waitFor();
      assert.equal(await fieldError(a, scope(a, 'nlp-intent-1'), 'Intent id').count(), 0, 'the earlier error is gone');
      await checkAccessibility(a.page, 'the NLP tab connecting a built-in integration, with an error');
      assert.equal((await admin.s.api.get(`/v1/channels/${id}/nlp`)).status, 404, 'nothing was saved');

      await a.page.getByRole('button', { name: /^Remove Latin/ }).click();
      await a.page.getByRole('button', { name: 'Connect and train' }).click();
      await a.page.getByText('Connected. Training has started: intents come once the model is ready.').waitFor();
      const saved = (await admin.s.api.get(`/v1/channels/${id}/nlp`)).body;
      assert.equal(saved.kind, 'builtin');
      assert.deepEqual(saved.languages, ['en', 'es']);
      assert.deepEqual(saved.intents, [
        { id: 'order_status', utterances: { en: ORDER_EN, es: ORDER_ES } },
        { id: 'greeting', utterances: { en: GREET_EN, es: GREET_ES } },
      ]);

      // Queued while no worker runs; the page follows the training by itself once one does.
      const training = scope(a, 'nlp-training');
      await training.getByText('Queued', { exact: true }).waitFor();
      await training.getByText('No model yet: received texts get no intents until this training ends.').waitFor();
      // No model to try yet: the API's 409 is told in the Try box.
      await a.page.getByLabel('Phrase', { exact: true }).fill('where is my order');
      await a.page.getByRole('button', { name: 'Classify' }).click();
      const refused = await admin.s.api.post(`/v1/channels/${id}/nlp/parse`, { text: 'where is my order' });
      assert.equal(refused.status, 409, refused.text);
      await scope(a, 'nlp-try-result').getByRole('alert').getByText(refused.body.errors[0].message, { exact: true }).waitFor();
      admin.s.runtime.startWorkers();
      await training.getByText('Ready', { exact: true }).waitFor({ timeout: 60_000 });
      await training.getByText('The model of version 1 classifies received texts.').waitFor();

      const order = await tryPhrase(a, 'where is my order please');
      assert.match(order[0] ?? '', /^order_status\b/, `ranked: ${order.join(' | ')}`);
      const greeting = await tryPhrase(a, 'hola, buenos días');
      assert.match(greeting[0] ?? '', /^greeting\b/, `ranked: ${greeting.join(' | ')}`);
      await a.page.getByText("The engine's full answer", { exact: true }).click();
      const native = JSON.parse((await a.page.getByLabel("The engine's full answer, as JSON").textContent()) ?? '') as unknown;
      assert.equal(typeof native, 'object', 'the native answer is shown as JSON');
      await checkAccessibility(a.page, 'the NLP tab of a trained built-in integration');

      // A new phrase trains version 2; the model of version 1 serves meanwhile. The page's reads
      // are held back, so what it shows is the save's own answer.
      const held: Route[] = [];
      let holding = true;
      const nlpPath = `/admin/api/v1/channels/${id}/nlp`;
      await a.page.route(
        (url) => url.pathname === nlpPath,
        (route) => (holding && route.request().method() === 'GET' ? held.push(route) : route.continue()),
      );
      await phrasesIn(a, 1, 'en').fill([...ORDER_EN, 'where is my parcel'].join('\n'));
      await a.page.getByText('Unsaved changes.').waitFor();
      await a.page.getByRole('button', { name: 'Save and train' }).click();
      await a.page.getByText('Saved. Version 2 is training.').waitFor();
      await training.getByText('An older model (version 1) serves while version 2 trains.').waitFor();
      holding = false;
      await Promise.all(held.map((route) => route.continue()));
      await a.page.unroute((url) => url.pathname === nlpPath);
      await training.getByText('The model of version 2 classifies received texts.').waitFor({ timeout: 60_000 });
      assert.deepEqual((await admin.s.api.get(`/v1/channels/${id}/nlp`)).body.intents[0].utterances.en, [...ORDER_EN, 'where is my parcel']);

      await a.page.getByRole('button', { name: 'Remove NLP integration' }).click();
      await a.page.getByRole('alertdialog').getByRole('button', { name: 'Remove', exact: true }).click();
      await a.page.getByText('NLP integration removed: received texts go out without intents.').waitFor();
      await a.page.getByRole('button', { name: 'Connect', exact: true }).waitFor();
      assert.equal((await admin.s.api.get(`/v1/channels/${id}/nlp`)).status, 404);
      await a.assertNoProblems([
        { status: 422, path: /^\/admin\/api\/v1\/channels\/\d+\/nlp$/ }, // training data refused at its fields
        { status: 409, path: /^\/admin\/api\/v1\/channels\/\d+\/nlp\/parse$/ }, // no model to try yet
      ]);
    });

    test('external: the URL refused at its field; the token is write-only, sent with a tried phrase, then cleared', async () => {
      nlu.answer = (call) => {
        const text = String(call.body?.text ?? '');
        const ranking = [
          { name: 'greeting', confidence: /hello/i.test(text) ? 0.91 : 0.12 },
          { name: 'order_status', confidence: /order/i.test(text) ? 0.87 : 0.05 },
        ].sort((x, y) => y.confidence - x.confidence);
        return {
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ text, intent: ranking[0], intent_ranking: ranking, entities: [] }),
        };
      };
      const id = await webChat('Support chat');
      const a = await admin.open(admin.owner);
      await a.goto(`/admin/channels/${id}/nlp`);
      await a.page.getByText('External NLU server', { exact: true }).click();
      await a.page.getByRole('button', { name: 'Connect', exact: true }).click();

      await a.page.getByLabel('NLU server URL').fill('nlu.example.com');
      await a.page.getByLabel('Auth token (optional)').fill('s3cret-token');
      await a.page.getByRole('button', { name: 'Connect', exact: true }).click();
      await fieldError(a, a.page.locator('main'), 'NLU server URL').waitFor();
      assert.equal((await admin.s.api.get(`/v1/channels/${id}/nlp`)).status, 404, 'nothing was saved');

      await a.page.getByLabel('NLU server URL').fill(nlu.origin);
      await a.page.getByRole('button', { name: 'Connect', exact: true }).click();
      await a.page.getByText('Connected.', { exact: true }).waitFor();
      const token = scope(a, 'nlp-auth-token');
      await token.getByText('set', { exact: true }).waitFor();
      assert.equal(await a.page.locator('main').getByText('s3cret-token').count(), 0, 'the token is never shown');
      await scope(a, 'nlp-stats').getByText('Classified').waitFor();
      await checkAccessibility(a.page, 'the NLP tab of an external integration');

      const ranked = await tryPhrase(a, 'hello, where is my order?');
      assert.match(ranked[0] ?? '', /^greeting\b/);
      assert.match(ranked[1] ?? '', /^order_status\b/);
      const call = nlu.calls.at(-1);
      assert.equal(call?.path, '/model/parse?token=s3cret-token');
      assert.deepEqual(call?.body, { text: 'hello, where is my order?' });

      // Cleared with a PATCH: the URL stays, the token goes.
      await token.getByRole('button', { name: 'Clear token' }).click();
      await token.getByText('Removed when you save.').waitFor();
      await a.page.getByRole('button', { name: 'Save changes' }).click();
      await a.page.getByText('Saved.', { exact: true }).waitFor();
      await token.getByText('not set', { exact: true }).waitFor();
      const view = (await admin.s.api.get(`/v1/channels/${id}/nlp`)).body;
      assert.equal(view.url, nlu.origin);
      assert.equal(view.auth_token_set, false);
      await tryPhrase(a, 'my order');
      assert.equal(nlu.calls.at(-1)?.path, '/model/parse');
      await a.assertNoProblems([{ status: 422, path: /^\/admin\/api\/v1\/channels\/\d+\/nlp$/ }]); // the URL refused at its field
    });
  });
}
