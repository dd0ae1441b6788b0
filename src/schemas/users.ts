/** The request field of an administration user's e-mail address, as errors name it (`field`). */
export const USER_EMAIL_FIELD = 'email';
