import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, loadSettings, ConfigError, type Config } from '../../src/config.js';
import { CONNECTOR_SETTINGS } from '../../src/connectors/registry-defaults.js';
import { STAND_INS } from '../../sandbox/registry.js';

const dataDir = () => mkdtempSync(join(tmpdir(), 'parley-config-'));

/** The configured base URL of each stand-in's platform, by the variable that would set it. */
function urlsByVariable(c: Config): Record<string, string> {
  const p = loadSettings(c, CONNECTOR_SETTINGS);
  return {
    SOCIALNET_API_URL: p.socialnet_chat.apiUrl,
    BOTMSG_API_URL: p.botmsg.apiUrl,
    SMSPROVIDER_API_URL: p.mobile.apiUrl,
    APPMSG_API_URL: p.appmsg.apiUrl,
    RBM_API_URL: p.rbm.apiUrl,
    MAILPROVIDER_API_URL: p.email.apiUrl,
    APPMSG_BUSINESS_API_URL: p.appmsg_business_messages.apiUrl,
  };
}

/** The stand-ins of platforms whose URL is a server setting (the NLU server's URL is given per NLP integration). */
const PLATFORMS = STAND_INS.flatMap((entry) => (entry.urlVariable ? [{ ...entry, urlVariable: entry.urlVariable }] : []));

test('without settings every platform URL is its stand-in on the ports `npm run sandbox` uses by default', () => {
  const urls = urlsByVariable(loadConfig({ DATA_DIR: dataDir() }));
  assert.equal(PLATFORMS.length, Object.keys(urls).length);
  for (const entry of PLATFORMS) assert.equal(urls[entry.urlVariable], `http://127.0.0.1:${9101 + entry.portOffset}`, entry.platform);
});

test('SANDBOX_PORT_BASE alone moves every platform URL to the stand-ins on the moved ports', () => {
  const urls = urlsByVariable(loadConfig({ DATA_DIR: dataDir(), SANDBOX_PORT_BASE: '9200' }));
  for (const entry of PLATFORMS) assert.equal(urls[entry.urlVariable], `http://127.0.0.1:${9200 + entry.portOffset}`, entry.platform);
});

test('an explicit platform URL wins over SANDBOX_PORT_BASE; the others still follow it', () => {
  const urls = urlsByVariable(loadConfig({ DATA_DIR: dataDir(), SANDBOX_PORT_BASE: '9200', BOTMSG_API_URL: 'https://bots.example.com' }));
  assert.equal(urls.BOTMSG_API_URL, 'https://bots.example.com');
  assert.equal(urls.SOCIALNET_API_URL, 'http://127.0.0.1:9200');
  assert.equal(urls.APPMSG_BUSINESS_API_URL, 'http://127.0.0.1:9206');
});

test('a SANDBOX_PORT_BASE that is not a port, or leaves no room for the last stand-in, stops the start naming it', () => {
  for (const value of ['x', '0', '-5', '9101.5', '65536']) {
    assert.throws(
      () => loadConfig({ DATA_DIR: dataDir(), SANDBOX_PORT_BASE: value }),
      (e: unknown) => e instanceof ConfigError && /SANDBOX_PORT_BASE/.test(e.message),
      value,
    );
  }
  // The room above it is the highest port a platform URL takes (its stand-in's offset, from the type modules).
  const last = Math.max(...PLATFORMS.map((e) => e.portOffset));
  assert.throws(
    () => urlsByVariable(loadConfig({ DATA_DIR: dataDir(), SANDBOX_PORT_BASE: String(65535 - last + 1) })),
    (e: unknown) => e instanceof ConfigError && /SANDBOX_PORT_BASE/.test(e.message),
  );
  assert.equal(urlsByVariable(loadConfig({ DATA_DIR: dataDir(), SANDBOX_PORT_BASE: String(65535 - last) })).APPMSG_BUSINESS_API_URL, 'http://127.0.0.1:65535');
});
