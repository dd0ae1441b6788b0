import { isoTime } from '../../lib/clock.js';
import type { AdminUserRow } from '../../store/repos/admin-users.js';
import type { Account } from '../accounts/service.js';

export const ROLES = ['owner', 'member'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** A user of the administration app as the domain hands it on. */
export interface AdminUser {
  id: number;
  accountId: number;
  email: string;
  role: Role;
  createdAt: number;
  mustChangePassword: boolean;
}

export function toAdminUser(row: AdminUserRow): AdminUser {
  return {
    id: Number(row.id),
    accountId: Number(row.account_id),
    email: row.email,
    role: row.role === 'owner' ? 'owner' : 'member',
    createdAt: Number(row.created_at),
    mustChangePassword: Number(row.must_change_password) === 1,
  };
}

/** The user as the app and the CLI show it: ids as decimal strings, times in ISO 8601. */
export function userJson(user: AdminUser) {
  return { id: String(user.id), email: user.email, role: user.role, created_at: isoTime(user.createdAt), must_change_password: user.mustChangePassword };
}

export function accountJson(account: Account) {
  return { id: String(account.id), name: account.name, plan: account.plan };
}

/** E-mail addresses are compared without regard to case or surrounding spaces. */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}
