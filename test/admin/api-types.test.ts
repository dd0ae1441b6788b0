import { test } from 'node:test';
import assert from 'node:assert/strict';
import { committedApiTypes, generateApiTypes } from '../../scripts/api-types.js';

test("the administration app's API types are the ones the code's OpenAPI document makes (npm run gen:api-types)", { timeout: 120_000 }, async () => {
  const fresh = await generateApiTypes();
  assert.ok(fresh.includes('/admin/api/channel-types') && fresh.includes('/channels/{channel_id}'), 'admin and /v1 paths');
  assert.ok(committedApiTypes() === fresh, 'web/admin/src/api-schema.d.ts is stale: run npm run gen:api-types and commit it');
});
