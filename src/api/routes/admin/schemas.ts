import { Type } from '@sinclair/typebox';
import { IdString, Timestamp } from '../../../schemas/common.js';

/** Bodies name only their own properties: anything else is a 422. */
const CLOSED = { additionalProperties: false } as const;

/** Bodies and answers of the administration app's own routes (documentation and request checks). */
export const AdminUserView = Type.Object({
  id: IdString,
  email: Type.String(),
  role: Type.Union([Type.Literal('owner'), Type.Literal('member')]),
  created_at: Timestamp,
  must_change_password: Type.Boolean(),
});

export const AdminAccountView = Type.Object({ id: IdString, name: Type.String(), plan: Type.String() });

export const SessionView = Type.Object({ user: AdminUserView, account: AdminAccountView, csrf_token: Type.String() });

/** Sign-in's answer when the password matches users of several accounts: no session yet, sign in again with `account_id`. */
export const AccountChoiceView = Type.Object({ choose_account: Type.Array(AdminAccountView) });

// Passwords have no schema limits: a refused value would be echoed in the error; the domain checks their length and never echoes them.
export const SignInBody = Type.Object(
  {
    email: Type.String({ maxLength: 1000 }),
    password: Type.String(),
    /** The account to sign in to, when the person is a user of several. */
    account_id: Type.Optional(Type.String({ maxLength: 64 })),
  },
  CLOSED,
);

export const SetupBody = Type.Object(
  {
    token: Type.String({ maxLength: 1000 }),
    password: Type.String(),
  },
  CLOSED,
);

export const PasswordChangeBody = Type.Object(
  {
    current_password: Type.String(),
    new_password: Type.String(),
  },
  CLOSED,
);

export const CreateUserBody = Type.Object(
  {
    email: Type.String({ maxLength: 1000 }),
    role: Type.Union([Type.Literal('owner'), Type.Literal('member')]),
    password: Type.Optional(Type.String()),
  },
  CLOSED,
);

/** A new user; `setup_link` only when no password was given (the link is shown this once). */
export const CreatedUserView = Type.Composite([AdminUserView, Type.Object({ setup_link: Type.Optional(Type.String()) })]);

export const UserList = Type.Object({ data: Type.Array(AdminUserView) });

export const UserParams = Type.Object({ id: Type.String() });
