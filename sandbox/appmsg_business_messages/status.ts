// Result codes (HTTP is 200 even on rejection; the outcome is in `status`).

export const STATUS = {
  SUCCESS: 0,
  SRVC_INTERNAL_FAILURE: 1,
  SRVC_BAD_SERVICE_ID: 2,
  SRVC_BAD_DATA: 3,
  SRVC_BAD_MESSAGE_TYPE: 5,
  SRVC_BAD_PARAMETERS: 6,
  SRVC_TIMEOUT: 7,
  SRVC_USER_BLOCKED: 8,
  /** The number is not registered on the messaging app (the real name carries the brand). */
  SRVC_NOT_APP_USER: 9,
  SRVC_NO_SUITABLE_DEVICE: 10,
  SRVC_UNAUTHORIZED_IP: 11,
  SRVC_NOT_PERMITTED: 13,
  SRVC_BAD_LABEL: 18,
  SRVC_INVALID_TTL: 20,
  SRVC_WAIT_FOR_USER_RESPONSE: 21,
  SRVC_INVALID_PHONE_NUMBER: 27,
  SRVC_FILE_NOT_PERMITTED: 28,
  SRVC_BAD_FILE_NAME_LENGTH: 29,
  SRVC_BAD_THUMBNAIL: 30,
  SRVC_BAD_FILE_SIZE: 31,
  SRVC_BAD_DURATION: 32,
  TEMPLATE_NOT_FOUND: 38,
  TEMPLATE_VALIDATION_ERROR: 39,
  LIST_VALIDATION_ERROR: 40,
  CAROUSEL_VALIDATION_ERROR: 41,
  SRVC_SERVICE_BLOCKED: 43,
} as const;

export type StatusName = keyof typeof STATUS;

export class Rejection extends Error {
  constructor(
    readonly statusName: StatusName,
    detail?: string,
    readonly codeOverride?: number,
  ) {
    super(detail ?? statusName);
  }
  get code(): number {
    return this.codeOverride ?? STATUS[this.statusName];
  }
}
