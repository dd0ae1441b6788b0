import { test } from 'node:test';
import assert from 'node:assert/strict';
import { originAllowed, originProblem } from '../../src/lib/origins.js';

test('whitelist entries: origins only, the standard port left out', () => {
  for (const ok of [
    'https://shop.example.com',
    'http://localhost',
    'http://localhost:8080',
    'http://127.0.0.1:5500',
    'https://[::1]:8443',
    'https://xn--bcher-kva.example',
    'HTTPS://Shop.Example.com',
  ]) {
    assert.equal(originProblem(ok), null, ok);
  }
  for (const bad of [
    'shop.example.com',
    'https://',
    'https://shop.example.com/',
    'https://shop.example.com/a',
    'https://shop.example.com?x=1',
    'https://shop.example.com#x',
    'https://*.example.com',
    'wss://shop.example.com',
    'https://shop.example.com:443',
    'http://shop.example.com:80',
    'http://localhost:0',
    'http://localhost:65536',
    'https://-bad.example.com',
    'https://a b.example.com',
    ' https://shop.example.com',
  ]) {
    assert.notEqual(originProblem(bad), null, bad);
  }
});

test('a page origin matches its entry whatever the case and the default port', () => {
  const list = ['https://shop.example.com', 'http://localhost:3000'];
  assert.equal(originAllowed(list, 'https://shop.example.com'), true);
  assert.equal(originAllowed(list, 'https://SHOP.example.com'), true);
  assert.equal(originAllowed(list, 'https://shop.example.com:443'), true);
  assert.equal(originAllowed(list, 'http://localhost:3000'), true);
  assert.equal(originAllowed(list, 'http://shop.example.com'), false);
  assert.equal(originAllowed(list, 'https://shop.example.com.evil.net'), false);
  assert.equal(originAllowed(list, 'http://localhost:3001'), false);
  assert.equal(originAllowed(list, 'null'), false);
  assert.equal(originAllowed(list, undefined), false);
  assert.equal(originAllowed([], 'https://shop.example.com'), false);
  assert.equal(originAllowed(null, 'https://shop.example.com'), false);
  assert.equal(originAllowed(undefined, 'https://shop.example.com'), false);
});
