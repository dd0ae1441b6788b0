import { useState, type ReactNode } from 'react';
import { ApiFailure } from '../api';
import { Button, ConfirmDialog, type Variant } from '../ui';

/** Small pieces the channel tabs share: a live status line, a confirmed action, 422 fields. */
export type Notice = { tone: 'ok' | 'error'; text: string } | null;

/** Announced to screen readers as it changes; errors as alerts. */
export function StatusLine({ notice }: { notice: Notice }) {
  const error = notice?.tone === 'error';
  return (
    <p className={`ch-status ${error ? 'ch-status-error' : ''}`} role={error ? 'alert' : 'status'} data-testid="channel-status">
      {notice?.text ?? ''}
    </p>
  );
}

/** A button that asks before it acts; the dialog says what will happen. */
export function ConfirmButton(props: {
  label: string;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<void>;
  danger?: boolean;
  variant?: Variant;
  isDisabled?: boolean;
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant={props.variant ?? (props.danger ? 'danger' : 'secondary')} isDisabled={props.isDisabled} onPress={() => setOpen(true)}>
        {props.label}
      </Button>
      <ConfirmDialog
        title={props.title}
        isOpen={open}
        onOpenChange={setOpen}
        confirmLabel={props.confirmLabel}
        danger={props.danger}
        onConfirm={props.onConfirm}
      >
        {props.children}
      </ConfirmDialog>
    </>
  );
}

/** The API's validation errors by field (422 `field`). */
export function fieldsOf(error: unknown): Record<string, string> {
  const fields: Record<string, string> = {};
  if (error instanceof ApiFailure) for (const e of error.errors) if (e.field !== undefined) fields[e.field] = e.message;
  return fields;
}

const withSeconds = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** A time to the second (webhook attempts follow each other within seconds). */
export function formatSeconds(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : withSeconds.format(date);
}
