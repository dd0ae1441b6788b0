// The create and edit form of a channel: the common fields, then the fields of its type. The
// API's 422 answers name the field (`provider.sender_id`); each is shown next to that field.
import { Fragment, useMemo, useState, type FormEvent } from 'react';
import { Form } from 'react-aria-components';
import { ApiFailure, messageOf, type ErrorDetail } from '../api';
import type { Channel, ChannelTypeInfo } from '../types';
import { Button, CheckboxField, Loading, SelectField, TextField } from '../ui';
import { useChannelType } from './channel-types';
import { fieldSpecs, getPath, setPath, type FieldSpec } from './fields';

export interface ChannelFormProps {
  type: string;
  /** The channel being edited; none when creating. */
  channel?: Channel;
  submitLabel: string;
  /** Sends the body; rejects with ApiFailure on refusal. */
  onSubmit: (body: Record<string, unknown>) => Promise<void>;
  onCancel: () => void;
}

const COMMON_FIELDS = ['name', 'mode', 'webhook.url', 'webhook.ssl_verification'];

function initialValue(field: FieldSpec, channel: Channel | undefined): string {
  if (!channel || field.kind === 'secret' || field.kind === 'json') return '';
  for (const path of field.view_paths ?? [field.path]) {
    const value = getPath(channel, path);
    if (value !== undefined && value !== null) return String(value);
  }
  return '';
}

/** Where an error of the API belongs: the shown field it names (or a field below the path it names). */
export function placeErrors(errors: ErrorDetail[], paths: string[]): { byField: Record<string, string>; rest: string[] } {
  const byField: Record<string, string> = {};
  const rest: string[] = [];
  for (const error of errors) {
    const field = error.field;
    const target =
      field === undefined
        ? undefined
        : (paths.find((p) => p === field) ??
          paths.find((p) => field.startsWith(`${p}.`) || field.startsWith(`${p}[`)) ??
          paths.find((p) => p.startsWith(`${field}.`)));
    if (target && !byField[target]) byField[target] = error.message;
    else rest.push(field && !target ? `${field}: ${error.message}` : error.message);
  }
  return { byField, rest };
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** Consecutive fields of one group together (the rbm agent's profile), the others one by one. */
function segmentsOf(fields: FieldSpec[]): { group?: string; fields: FieldSpec[] }[] {
  const segments: { group?: string; fields: FieldSpec[] }[] = [];
  for (const field of fields) {
    const last = segments.at(-1);
    if (last && field.group !== undefined && last.group === field.group) last.fields.push(field);
    else segments.push({ ...(field.group === undefined ? {} : { group: field.group }), fields: [field] });
  }
  return segments;
}

function numberOrText(text: string): unknown {
  return /^-?\d+$/.test(text.trim()) ? Number(text.trim()) : text;
}

export function ChannelForm(props: ChannelFormProps) {
  const info = useChannelType(props.type);
  return info ? <FormOfType {...props} info={info} /> : <Loading />;
}

function FormOfType({ type, info, channel, submitLabel, onSubmit, onCancel }: ChannelFormProps & { info: ChannelTypeInfo }) {
  const spec = useMemo(() => ({ ...info, fields: fieldSpecs(info) }), [info]);
  const editing = channel !== undefined;
  const [name, setName] = useState(channel?.name ?? '');
  const [mode, setMode] = useState<string>(channel?.mode ?? 'production');
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(spec.fields.map((f) => [f.path, initialValue(f, channel)])));
  const [webhookUrl, setWebhookUrl] = useState('');
  const [sslVerification, setSslVerification] = useState(true);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const paths = useMemo(() => [...COMMON_FIELDS, ...spec.fields.map((f) => f.path)], [spec]);

  const body = (): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    if (!editing) out.type = type;
    if (!editing || name !== channel.name) out.name = name;
    if (spec.modes.length > 1 && (!editing || mode !== channel.mode)) out.mode = mode;
    if (!editing) for (const [path, value] of Object.entries(spec.fixed)) setPath(out, path, value);
    // A group with a changed field is sent whole: the API takes the object as given.
    const changedGroups = new Set(
      spec.fields.filter((f) => f.group !== undefined && editing && (values[f.path] ?? '') !== initialValue(f, channel)).map((f) => f.group),
    );
    for (const field of spec.fields) {
      const value = values[field.path] ?? '';
      if (value === '' && (editing || !field.required)) continue;
      if (field.kind === 'boolean') {
        if (editing ? value !== initialValue(field, channel) : value === 'true') setPath(out, field.path, value === 'true');
        continue;
      }
      const wholeGroup = field.group !== undefined && changedGroups.has(field.group);
      if (editing && !wholeGroup && field.kind !== 'secret' && field.kind !== 'json' && value === initialValue(field, channel)) continue;
      setPath(out, field.path, field.kind === 'integer' ? numberOrText(value) : field.kind === 'json' ? JSON.parse(value) : value);
    }
    if (!editing && webhookUrl.trim()) out.webhook = { url: webhookUrl.trim(), ssl_verification: sslVerification };
    return out;
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found: Record<string, string> = {};
    if (!name.trim()) found.name = 'Give the channel a name.';
    if (!editing)
      for (const field of spec.fields) if (field.required && !(values[field.path] ?? '').trim()) found[field.path] = `Enter the ${field.label.toLowerCase()}.`;
    for (const field of spec.fields) {
      const text = (values[field.path] ?? '').trim();
      if (field.kind === 'json' && text && !isJsonObject(text)) found[field.path] = 'Paste the whole key file: a JSON object in braces.';
    }
    setErrors(found);
    setGeneral([]);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      await onSubmit(body());
    } catch (error) {
      if (error instanceof ApiFailure && error.status === 422) {
        const placed = placeErrors(error.errors, paths);
        setErrors(placed.byField);
        setGeneral(placed.rest);
      } else setGeneral([messageOf(error)]);
      setBusy(false);
    }
  };

  const set = (path: string) => (value: string) => setValues((v) => ({ ...v, [path]: value }));

  const renderField = (field: FieldSpec) =>
    field.kind === 'boolean' ? (
      <CheckboxField
        key={field.path}
        label={field.label}
        isSelected={values[field.path] === 'true'}
        onChange={(on) => set(field.path)(on ? 'true' : 'false')}
        description={field.hint}
      />
    ) : field.kind === 'select' ? (
      <SelectField
        key={field.path}
        label={field.label}
        options={field.options ?? []}
        value={values[field.path] || (editing || field.group !== undefined ? null : (field.options?.[0]?.id ?? null))}
        onChange={set(field.path)}
        error={errors[field.path]}
        description={field.hint}
      />
    ) : (
      <TextField
        key={field.path}
        label={field.label}
        name={field.path}
        multiline={field.kind === 'json'}
        rows={field.kind === 'json' ? 6 : undefined}
        type={field.kind === 'secret' ? 'password' : field.kind === 'email' ? 'email' : 'text'}
        inputMode={field.kind === 'integer' ? 'numeric' : undefined}
        autoComplete={field.kind === 'secret' ? 'new-password' : 'off'}
        value={values[field.path] ?? ''}
        onChange={set(field.path)}
        error={errors[field.path]}
        isRequired={field.required && !editing}
        placeholder={field.placeholder}
        description={editing && (field.kind === 'secret' || field.kind === 'json') ? 'Leave empty to keep the current value.' : field.hint}
      />
    );

  return (
    <Form className="form" onSubmit={(e) => void submit(e)} validationBehavior="aria">
      <p className="muted">{spec.intro}</p>
      <TextField label="Name" value={name} onChange={setName} error={errors.name} isRequired description="Shown to you only, in lists and events." />
      {spec.modes.length > 1 ? (
        <SelectField label="Mode" options={spec.modes.map((m) => ({ id: m.mode, label: m.label }))} value={mode} onChange={setMode} error={errors.mode} />
      ) : null}
      {spec.fields.length > 0 ? (
        <fieldset>
          <legend>Platform connection</legend>
          {segmentsOf(spec.fields).map((segment) =>
            segment.group === undefined ? (
              <Fragment key={segment.fields[0]?.path}>{segment.fields.map(renderField)}</Fragment>
            ) : (
              <fieldset key={segment.group} className="field-group">
                <legend>{spec.groups.find((g) => g.id === segment.group)?.title ?? segment.group}</legend>
                <p className="muted">{spec.groups.find((g) => g.id === segment.group)?.intro}</p>
                {segment.fields.map(renderField)}
              </fieldset>
            ),
          )}
        </fieldset>
      ) : null}
      {!editing ? (
        <fieldset>
          <legend>Webhook (optional)</legend>
          <TextField
            label="Webhook URL"
            type="url"
            value={webhookUrl}
            onChange={setWebhookUrl}
            error={errors['webhook.url']}
            placeholder="https://example.com/parley/events"
            description="Receives every event of the channel; you can set it later in the Webhook tab."
          />
          <CheckboxField
            label="Verify the webhook's TLS certificate"
            isSelected={sslVerification}
            onChange={setSslVerification}
            description="Turning this off is not recommended."
          />
          {errors['webhook.ssl_verification'] ? <p className="field-error">{errors['webhook.ssl_verification']}</p> : null}
        </fieldset>
      ) : null}
      {general.length > 0 ? (
        <div className="message message-error" role="alert">
          {general.length === 1 ? (
            <span>{general[0]}</span>
          ) : (
            <ul>
              {general.map((m) => (
                <li key={m}>{m}</li>
              ))}
            </ul>
          )}
        </div>
      ) : Object.keys(errors).length > 0 ? (
        <p className="message message-error" role="alert">
          Check the fields marked above.
        </p>
      ) : null}
      <div className="form-actions">
        <Button variant="secondary" onPress={onCancel}>
          Cancel
        </Button>
        <Button variant="primary" type="submit" isPending={busy}>
          {submitLabel}
        </Button>
      </div>
    </Form>
  );
}
