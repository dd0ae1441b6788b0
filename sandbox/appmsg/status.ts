// Result codes of the API (HTTP is always 200; the outcome is in `status`).

export const STATUS = {
  ok: 0,
  invalidUrl: 1,
  invalidAuthToken: 2,
  badData: 3,
  missingData: 4,
  receiverNotRegistered: 5,
  receiverNotSubscribed: 6,
  publicAccountBlocked: 7,
  publicAccountNotFound: 8,
  publicAccountSuspended: 9,
  webhookNotSet: 10,
  receiverNoSuitableDevice: 11,
  tooManyRequests: 12,
  apiVersionNotSupported: 13,
  incompatibleWithVersion: 14,
  publicAccountNotAuthorized: 15,
  inchatReplyMessageNotAllowed: 16,
  publicAccountIsNotInline: 17,
  noPublicChat: 18,
  cannotSendBroadcast: 19,
  broadcastNotAllowed: 20,
} as const;

export type StatusName = keyof typeof STATUS;

/** A non-zero outcome; `message` defaults to the status name. */
export class ApiStatus extends Error {
  constructor(
    readonly statusName: StatusName,
    message?: string,
    readonly codeOverride?: number,
  ) {
    super(message ?? statusName);
  }
  get code(): number {
    return this.codeOverride ?? STATUS[this.statusName];
  }
}

export function statusBody(err: ApiStatus): Record<string, unknown> {
  return { status: err.code, status_message: err.message };
}
