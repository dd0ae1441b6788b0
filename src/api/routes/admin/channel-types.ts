import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { CHANNEL_TYPE_DEFINITIONS, type ChannelTypeDefinition } from '../../../channel-types/index.js';
import { MODE_LABELS, type UiField } from '../../../channel-types/ui.js';
import type { RoutePlugin } from '../../route-group.js';

const Text = Type.String();
const Tone = Type.Union([Type.Literal('ok'), Type.Literal('warn'), Type.Literal('bad'), Type.Literal('neutral')]);
const StateText = {
  label: Text,
  description: Type.String({ description: "`{reason}` stands for the platform's reason in parentheses, or nothing." }),
  tone: Tone,
};

const FieldView = Type.Object({
  path: Type.String({ description: 'JSON path in the Create and Update Channel body, also the `field` of a 422.' }),
  label: Text,
  view_label: Type.Optional(Type.String({ description: "The label on the details page, when other than the form's." })),
  kind: Type.Union(['text', 'email', 'integer', 'select', 'json', 'boolean'].map((k) => Type.Literal(k))),
  secret: Type.Boolean({ description: 'A credential: write-only in the form, kept encrypted, shown as set or not set.' }),
  required: Type.Boolean({ description: 'Required on create.' }),
  hint: Type.Optional(Text),
  placeholder: Type.Optional(Text),
  options: Type.Optional(Type.Array(Type.Object({ id: Text, label: Text }))),
  view_paths: Type.Optional(Type.Array(Text, { description: 'Where the Channel object shows the value, when not at `path`.' })),
  group: Type.Optional(Type.String({ description: 'The id of the group the field belongs to: the group is sent whole when one of its fields changed.' })),
});

const ChannelTypeView = Type.Object({
  type: Text,
  label: Text,
  short_label: Text,
  intro: Text,
  modes: Type.Array(Type.Object({ mode: Text, label: Text }), { description: 'The first is the default.' }),
  sends: Type.Object(
    {
      content_types: Type.Array(Text),
      quick_reply_kinds: Type.Array(Text),
      buttons: Type.Array(Text),
      delivery: Type.Union([Type.Literal('sync'), Type.Literal('async')]),
    },
    { description: 'What the type can send (Get Capabilities has the limits).' },
  ),
  contact_address: Type.Union([Type.Literal('id'), Type.Literal('phone_number'), Type.Literal('email')], {
    description: 'How Send Message names a known contact of the type: by id when the type takes one, else by its phone number or address.',
  }),
  web_chat: Type.Boolean({ description: "Contacts talk through this service's own chat (the widget)." }),
  settings: Type.Array(Text, { description: 'The names of the settings Get and Update Settings take; empty when the type has none.' }),
  fixed: Type.Record(Type.String(), Type.String(), { description: 'Values the create body always carries (the provider type), by JSON path.' }),
  fields: Type.Array(FieldView),
  groups: Type.Array(Type.Object({ id: Text, title: Text, intro: Text })),
  view_fields: Type.Array(Type.Object({ path: Text, label: Text }), { description: 'Values read from the platform, shown when present.' }),
  platform_urls: Type.Array(Type.Object({ path: Text, label: Text, copy_label: Type.Optional(Text) }), {
    description: 'URLs and tokens of the Channel object the platform is given.',
  }),
  platform_state: Type.Union([
    Type.Null(),
    Type.Object(
      {
        path: Type.String({ description: 'JSON path of the state in the Channel object (and in Update Channel).' }),
        reason_path: Text,
        initial: Type.Optional(Text),
        states: Type.Array(Type.Object({ state: Text, ...StateText }), { description: 'In the order of the life cycle.' }),
        missing: Type.Optional(Type.Object({ path: Text, ...StateText })),
        panel: Type.Optional(
          Type.Object({
            title: Text,
            steps_label: Text,
            waiting: Text,
            done: Text,
            actions: Type.Array(Type.Object({ from: Text, to: Text, label: Text, confirm: Text })),
          }),
        ),
      },
      { description: "A state the platform moves (the definition's platform state), and how it reads." },
    ),
  ]),
});
type ChannelTypeView = Static<typeof ChannelTypeView>;

/** Whether the create schema requires the value at `path` (every step required, from the type object down). */
function requiredOnCreate(definition: ChannelTypeDefinition, path: string): boolean {
  const { key, schema, required } = definition.input;
  const [first, ...rest] = path.split('.');
  if (!required || !schema || first !== key || rest.length === 0) return false;
  let at: TSchema | undefined = schema;
  for (const step of rest) {
    const object = at as { required?: string[]; properties?: Record<string, TSchema> } | undefined;
    if (!object?.properties?.[step] || !object.required?.includes(step)) return false;
    at = object.properties[step];
  }
  return true;
}

/** Whether the field is one of the type object's credentials. */
function isSecret(definition: ChannelTypeDefinition, path: string): boolean {
  const [first, second] = path.split('.');
  return first === definition.input.key && second !== undefined && definition.input.secretFields.includes(second);
}

/** Literal properties of the type object (the provider type), which a create body always carries. */
function fixedValues(definition: ChannelTypeDefinition): Record<string, string> {
  const { key, schema } = definition.input;
  const fixed: Record<string, string> = {};
  for (const [name, property] of Object.entries(schema?.properties ?? {})) {
    const value = (property as { const?: unknown }).const;
    if (key && typeof value === 'string') fixed[`${key}.${name}`] = value;
  }
  return fixed;
}

function fieldView(definition: ChannelTypeDefinition, field: UiField): Static<typeof FieldView> {
  return {
    path: field.path,
    label: field.label,
    ...(field.viewLabel === undefined ? {} : { view_label: field.viewLabel }),
    kind: field.kind,
    secret: isSecret(definition, field.path),
    required: requiredOnCreate(definition, field.path),
    ...(field.hint === undefined ? {} : { hint: field.hint }),
    ...(field.placeholder === undefined ? {} : { placeholder: field.placeholder }),
    ...(field.options === undefined ? {} : { options: field.options.map((o) => ({ ...o })) }),
    ...(field.viewPaths === undefined ? {} : { view_paths: [...field.viewPaths] }),
    ...(field.group === undefined ? {} : { group: field.group }),
  };
}

/** What the administration app needs of one type: the definition's knowledge and its `ui` part. */
export function channelTypeView(definition: ChannelTypeDefinition): ChannelTypeView {
  const { ui, capabilities, input, platformState } = definition;
  const forms = capabilities.contactForms;
  const address = forms.includes('id') ? 'id' : forms.includes('phone_number') ? 'phone_number' : 'email';
  const statePath = (key: string) => (input.key ? `${input.key}.${key}` : key);
  return {
    type: definition.type,
    label: ui.label,
    short_label: ui.shortLabel,
    intro: ui.intro,
    modes: definition.modes.map((mode) => ({ mode, label: MODE_LABELS[mode] ?? mode })),
    sends: {
      content_types: [...capabilities.contentTypes],
      quick_reply_kinds: [...capabilities.quickReplyKinds],
      buttons: [...capabilities.buttons],
      delivery: capabilities.delivery,
    },
    contact_address: address,
    web_chat: definition.webChat,
    settings: [...definition.settings.names],
    fixed: fixedValues(definition),
    fields: ui.fields.map((field) => fieldView(definition, field)),
    groups: (ui.groups ?? []).map((g) => ({ ...g })),
    view_fields: (ui.viewFields ?? []).map((f) => ({ ...f })),
    platform_urls: (ui.platformUrls ?? []).map((u) => ({ path: u.path, label: u.label, ...(u.copyLabel ? { copy_label: u.copyLabel } : {}) })),
    platform_state:
      platformState && ui.state
        ? {
            path: statePath(platformState.key),
            reason_path: statePath(platformState.reasonKey),
            ...(ui.state.initial === undefined ? {} : { initial: ui.state.initial }),
            states: ui.state.states.map((s) => ({ ...s })),
            ...(ui.state.missing ? { missing: { ...ui.state.missing } } : {}),
            ...(ui.state.panel
              ? {
                  panel: {
                    title: ui.state.panel.title,
                    steps_label: ui.state.panel.stepsLabel,
                    waiting: ui.state.panel.waiting,
                    done: ui.state.panel.done,
                    actions: ui.state.panel.actions.map((a) => ({ ...a })),
                  },
                }
              : {}),
          }
        : null,
  };
}

/** The channel types and how the administration app shows them: the app keeps no copy of this. */
export const adminChannelTypeRoutes: RoutePlugin = async (app) => {
  // The same for every account and request: built once.
  const answer = { data: CHANNEL_TYPE_DEFINITIONS.map(channelTypeView) };
  app.get(
    '/channel-types',
    {
      schema: {
        tags: ['Administration'],
        operationId: 'adminListChannelTypes',
        summary: 'The channel types, in order, with their names, modes, fields and what the app shows of them',
        'x-response': { 200: Type.Object({ data: Type.Array(ChannelTypeView) }) },
      },
    },
    async () => answer,
  );
};
