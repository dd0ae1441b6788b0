import { FormatRegistry } from '@sinclair/typebox';

/** String formats used by the schemas; TypeBox checks only formats that are registered. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

if (!FormatRegistry.Has('email')) FormatRegistry.Set('email', (v) => EMAIL.test(v));
if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (v) => !Number.isNaN(Date.parse(v)));
if (!FormatRegistry.Has('uri')) {
  FormatRegistry.Set('uri', (v) => {
    try {
      const u = new URL(v);
      return u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      return false;
    }
  });
}
