import { colorFor, makePng } from '../shared/png.js';
import { randomDigits } from '../shared/ids.js';
import type { MediaStore } from '../shared/media-store.js';
import type { SnContext } from './context.js';
import type { SnAdmin, SnPage, SnUser } from './state.js';
import { mintToken, SHORT_LIVED_MS } from './tokens.js';
import { WEBHOOK_FIELDS } from './webhooks.js';

// Creating admins, pages and users (used by the control API).

export function createAdmin(ctx: SnContext, name: string, id?: string): SnAdmin {
  const admin: SnAdmin = { id: id ?? randomDigits(15), name, pageIds: [] };
  ctx.state.admins.set(admin.id, admin);
  return admin;
}

export interface NewPage {
  id?: string;
  name?: string;
  category?: string;
  /** true = all webhook fields, or a list of fields; default: not subscribed (as on the real platform). */
  subscribe?: boolean | string[];
}

export function createPage(ctx: SnContext, admin: SnAdmin, input: NewPage): SnPage {
  const subscribe = input.subscribe;
  const page: SnPage = {
    id: input.id ?? randomDigits(15),
    name: input.name ?? 'Sandbox Page',
    category: input.category ?? 'Software',
    adminId: admin.id,
    connected: true,
    disconnectReason: null,
    subscribedFields: subscribe === true ? [...WEBHOOK_FIELDS] : Array.isArray(subscribe) ? [...subscribe] : [],
    profile: {},
    profileChanges: [],
  };
  ctx.state.pages.set(page.id, page);
  admin.pageIds.push(page.id);
  return page;
}

export function issuePageToken(ctx: SnContext, page: SnPage, lifetimeMs: number | null = null): string {
  return mintToken(ctx.state, 'page', page.adminId, page.id, lifetimeMs).token;
}

export function issueShortLivedUserToken(ctx: SnContext, adminId: string): string {
  return mintToken(ctx.state, 'user', adminId, null, SHORT_LIVED_MS).token;
}

/** A generated profile picture, served by the stand-in; answers its media id. */
export function putProfilePicture(media: MediaStore, psid: string): string {
  return media.put(makePng(64, 64, colorFor(psid)), 'image/png', 'profile.png').id;
}

export interface NewUser {
  psid?: string;
  firstName?: string;
  lastName?: string;
  gender?: string;
  locale?: string;
  timezone?: number;
  phoneNumber?: string | null;
  started?: boolean;
}

export function createUser(ctx: SnContext, page: SnPage, input: NewUser): SnUser {
  const psid = input.psid ?? randomDigits(16);
  const started = input.started ?? false;
  const user: SnUser = {
    psid,
    pageId: page.id,
    firstName: input.firstName ?? 'Alex',
    lastName: input.lastName ?? 'Sample',
    gender: input.gender ?? 'female',
    locale: input.locale ?? 'en_US',
    timezone: input.timezone ?? 1,
    phoneNumber: input.phoneNumber ?? null,
    profilePicMediaId: putProfilePicture(ctx.state.media, psid),
    blocked: false,
    started,
    lastInboundAt: started ? ctx.state.clock.now() : null,
  };
  ctx.state.users.set(user.psid, user);
  return user;
}
