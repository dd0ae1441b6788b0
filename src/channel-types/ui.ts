/**
 * How the administration app shows a channel type: names, the labels and hints of the type
 * object's fields, and the texts of its platform-side state. The app has no copy of them: the
 * admin route `GET /admin/api/channel-types` serves them with what the definition knows besides
 * (modes, capabilities, which fields are required and secret).
 */
export interface ChannelTypeUi {
  /** The type's name on screen, with its id: "SMS (mobile)". */
  label: string;
  /** The name in lists, badges and charts: "SMS". */
  shortLabel: string;
  /** One sentence on what the type needs, shown above its fields. */
  intro: string;
  /** The fields the create and edit forms take, in their order (the details page shows them too). */
  fields: readonly UiField[];
  /** Titles of the field groups named by `UiField.group`. */
  groups?: readonly UiFieldGroup[];
  /** Values of the Channel object read from the platform, shown on the details page when present. */
  viewFields?: readonly UiViewField[];
  /** URLs and tokens of the Channel object that the platform is given, shown with a copy button. */
  platformUrls?: readonly UiPlatformUrl[];
  /** How the platform-side state (the definition's `platformState`) reads. */
  state?: UiPlatformState;
}

export type UiFieldKind = 'text' | 'email' | 'integer' | 'select' | 'json' | 'boolean';

export interface UiField {
  /** JSON path in the request body (also the `field` of a 422), e.g. `provider.sender_id`. */
  path: string;
  label: string;
  /** The label on the details page, when other than the form's. */
  viewLabel?: string;
  /** `json`: an object pasted as JSON text (a key file), sent as the object. */
  kind: UiFieldKind;
  hint?: string;
  placeholder?: string;
  options?: readonly { id: string; label: string }[];
  /** Where the Channel object shows the value, when not at `path` (first present wins). */
  viewPaths?: readonly string[];
  /** The group (an object of the type sent whole when one of its fields changed). */
  group?: string;
}

export interface UiFieldGroup {
  id: string;
  title: string;
  intro: string;
}

export interface UiViewField {
  path: string;
  label: string;
}

export interface UiPlatformUrl {
  path: string;
  label: string;
  /** The copy button's label, when not "Copy URL". */
  copyLabel?: string;
}

export type UiTone = 'ok' | 'warn' | 'bad' | 'neutral';

export interface UiStateText {
  label: string;
  /** `{reason}` is replaced by the platform's reason in parentheses, or by nothing. */
  description: string;
  tone: UiTone;
}

export interface UiPlatformState {
  /** The state a channel is in before the platform said anything (shown when the key is absent). */
  initial?: string;
  /** Texts of the states, in the order of the life cycle; a state without a text reads as the mode does. */
  states: readonly (UiStateText & { state: string })[];
  /** Shown instead when the Channel object lacks this path (a page never connected). */
  missing?: { path: string } & UiStateText;
  /** The steps a user may ask for (the state written with Update Channel), with a panel of the life cycle. */
  panel?: {
    title: string;
    stepsLabel: string;
    /** Shown while the platform has the next move. */
    waiting: string;
    /** Shown in the last state. */
    done: string;
    actions: readonly { from: string; to: string; label: string; confirm: string }[];
  };
}

/** What the modes mean, for every type that has them. */
export const MODE_LABELS: Record<string, string> = {
  production: 'Production: messages are sent',
  test: 'Test: accepted and stored, never sent, no cost',
  shared: 'Shared: common sender identity, free, limited',
};
