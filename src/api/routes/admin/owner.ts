import { ApiError } from '../../../lib/errors.js';
import { adminUserOf, type AdminUserContext } from '../../context.js';

/** Refuses a member (403) where only an owner may change things; `what` names them ("tokens"). */
export function requireOwner(request: { adminUser?: AdminUserContext }, what: string): void {
  if (adminUserOf(request).role !== 'owner') throw ApiError.of('forbidden', `Only an owner can manage ${what}.`);
}
