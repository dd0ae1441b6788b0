// Modal dialogs: focus is trapped inside and returns to the opener; Escape closes. The confirm
// dialog runs its action, keeps itself open with the error when the action fails.
import { useState, type ReactNode } from 'react';
import { Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { messageOf } from '../api';
import { Button } from './button';

export interface AppDialogProps {
  title: string;
  isOpen: boolean;
  onOpenChange: (open: boolean) => void;
  children: ReactNode;
  /** Dialogs that show something once (a new token) should not close on a stray click. */
  isDismissable?: boolean;
  role?: 'dialog' | 'alertdialog';
}

export function AppDialog({ title, isOpen, onOpenChange, children, isDismissable = true, role = 'dialog' }: AppDialogProps) {
  return (
    <ModalOverlay className="modal-overlay" isOpen={isOpen} onOpenChange={onOpenChange} isDismissable={isDismissable}>
      <Modal className="modal">
        <Dialog className="dialog" role={role}>
          <Heading slot="title" className="dialog-title">
            {title}
          </Heading>
          {children}
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}

export interface ConfirmDialogProps {
  title: string;
  isOpen: boolean;
  onOpenChange: (open: boolean) => void;
  /** What will happen, in words the user checks before confirming. */
  children: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  /** Resolves when done (the dialog closes); a rejection is shown in the dialog. */
  onConfirm: () => Promise<void> | void;
}

export function ConfirmDialog({ title, isOpen, onOpenChange, children, confirmLabel, danger, onConfirm }: ConfirmDialogProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      onOpenChange(false);
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };

  const change = (open: boolean) => {
    if (!open) setError(null);
    onOpenChange(open);
  };

  return (
    <AppDialog title={title} isOpen={isOpen} onOpenChange={change} role="alertdialog">
      <div className="dialog-body">{children}</div>
      {error ? (
        <p className="message message-error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="dialog-actions">
        <Button variant="secondary" onPress={() => change(false)} isDisabled={busy}>
          Cancel
        </Button>
        <Button variant={danger ? 'danger' : 'primary'} onPress={() => void confirm()} isPending={busy} autoFocus>
          {confirmLabel}
        </Button>
      </div>
    </AppDialog>
  );
}
