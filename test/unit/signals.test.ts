import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Signals } from '../../src/lib/signals.js';

interface Map {
  stored: { id: number };
  due: void;
}

describe('signals', () => {
  test('listeners hear their own name in the order added, with the payload; a removed one hears nothing more', () => {
    const signals = new Signals<Map>();
    const heard: string[] = [];
    signals.on('stored', ({ id }) => heard.push(`a${id}`));
    const off = signals.on('stored', ({ id }) => heard.push(`b${id}`));
    signals.on('due', () => heard.push('due'));
    signals.emit('stored', { id: 1 });
    off();
    signals.emit('stored', { id: 2 });
    signals.emit('due');
    assert.deepEqual(heard, ['a1', 'b1', 'a2', 'due']);
  });

  test('a listener that throws is reported by name and neither stops the others nor the emitter', () => {
    const errors: Array<[string, unknown]> = [];
    const signals = new Signals<Map>((error, name) => errors.push([String(name), (error as Error).message]));
    const heard: number[] = [];
    signals.on('stored', () => {
      throw new Error('boom');
    });
    signals.on('stored', ({ id }) => heard.push(id));
    assert.doesNotThrow(() => signals.emit('stored', { id: 7 }));
    assert.deepEqual(heard, [7]);
    assert.deepEqual(errors, [['stored', 'boom']]);
  });

  test('a name nobody listens to is emitted without effect', () => {
    const signals = new Signals<Map>(() => assert.fail('no listener should run'));
    signals.emit('due');
  });
});
