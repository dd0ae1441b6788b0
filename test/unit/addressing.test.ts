import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAddress } from '../../src/domain/messages/addressing.js';
import { failure } from '../helpers/api-errors.js';

describe('contact addressing per channel type', () => {
  test('each type takes its forms and refuses the others naming the field', () => {
    const forms = {
      id: { id: '123' },
      phone_number: { phone_number: '+420601123456' },
      user_ref: { user_ref: 'ref-1' },
      email: { email: 'jan@example.com' },
    } as const;
    const takes: Record<string, string[]> = {
      service_chat: ['id'],
      socialnet_chat: ['id', 'phone_number', 'user_ref'],
      mobile: ['phone_number'],
      rbm: ['phone_number'],
      appmsg: ['id'],
      appmsg_business_messages: ['phone_number'],
      botmsg: ['id'],
      email: ['id', 'email'],
    };
    for (const [type, allowed] of Object.entries(takes)) {
      for (const [form, contact] of Object.entries(forms)) {
        const f = failure(() => parseAddress(type as never, contact, undefined));
        if (allowed.includes(form)) assert.equal(f, null, `${type} takes ${form}`);
        else {
          assert.equal(f?.field, `contact.${form}`, `${type} refuses ${form}`);
          assert.match(f!.message, new RegExp(`cannot address a contact by '${form}'; it takes: ${allowed.join(', ')}`));
        }
      }
    }
  });
  test('exactly one form; names only with their form', () => {
    assert.equal(failure(() => parseAddress('socialnet_chat', {}, undefined))?.field, 'contact');
    assert.equal(failure(() => parseAddress('socialnet_chat', { id: '1', phone_number: '+420601123456' }, undefined))?.field, 'contact');
    assert.equal(
      failure(() => parseAddress('socialnet_chat', { phone_number: '+420601123456', first_name: 'Jan', last_name: 'Novák' }, undefined)),
      null,
    );
    assert.equal(failure(() => parseAddress('socialnet_chat', { id: '1', first_name: 'Jan' }, undefined))?.field, 'contact.first_name');
    assert.equal(
      failure(() => parseAddress('email', { email: 'a@b.cz', name: 'A' }, undefined)),
      null,
    );
    assert.equal(failure(() => parseAddress('email', { id: '1', name: 'A' }, undefined))?.field, 'contact.name');
  });
  test('phone numbers in free format come out in E.164', () => {
    for (const input of ['+420 601 123 456', '+420-601-123-456', '00420601123456', '(+420) 601123456']) {
      const a = parseAddress('mobile', { phone_number: input }, undefined);
      assert.deepEqual(a, { form: 'phone_number', phoneNumber: '+420601123456' }, input);
    }
  });
  test('a number without country code uses the default region, or is refused naming the field', () => {
    assert.deepEqual(parseAddress('mobile', { phone_number: '601 123 456' }, 'CZ'), { form: 'phone_number', phoneNumber: '+420601123456' });
    assert.deepEqual(parseAddress('mobile', { phone_number: '(202) 555-0143' }, 'US'), { form: 'phone_number', phoneNumber: '+12025550143' });
    const f = failure(() => parseAddress('mobile', { phone_number: '601 123 456' }, undefined));
    assert.equal(f?.field, 'contact.phone_number');
    assert.match(f!.message, /no country code/);
    assert.equal(failure(() => parseAddress('mobile', { phone_number: '+42' }, undefined))?.field, 'contact.phone_number');
    assert.equal(failure(() => parseAddress('mobile', { phone_number: 'call me' }, 'CZ'))?.field, 'contact.phone_number');
  });
  test('e-mail addresses are checked and kept in lower case', () => {
    assert.deepEqual(parseAddress('email', { email: ' Jan@Example.COM ', name: 'Jan' }, undefined), {
      form: 'email_address',
      email: 'jan@example.com',
      name: 'Jan',
    });
    assert.equal(failure(() => parseAddress('email', { email: 'nobody' }, undefined))?.field, 'contact.email');
  });
  test('an id that cannot exist is kept for the lookup to refuse', () => {
    assert.deepEqual(parseAddress('service_chat', { id: 'abc' }, undefined), { form: 'id', id: null, raw: 'abc' });
  });
});
