import * as Ariakit from '@ariakit/react';
import type { ReactNode } from 'react';

/** A modal dialog (Ariakit: focus trapped and restored, Escape closes, the page behind is inert). */
export function Modal(props: { open: boolean; onClose: () => void; title: string; children: ReactNode; wide?: boolean }) {
  return (
    <Ariakit.Dialog
      open={props.open}
      onClose={props.onClose}
      className={props.wide === true ? 'dialog wide' : 'dialog'}
      backdrop={<div className="dialog-backdrop" />}
    >
      <Ariakit.DialogHeading className="dialog-title">{props.title}</Ariakit.DialogHeading>
      {props.children}
    </Ariakit.Dialog>
  );
}

/** Asks before something that cannot be undone. */
export function ConfirmDialog(props: {
  open: boolean;
  onClose: () => void;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  busy?: boolean;
  danger?: boolean;
}) {
  return (
    <Modal open={props.open} onClose={props.onClose} title={props.title}>
      <div className="dialog-body">{props.children}</div>
      <div className="dialog-actions">
        <Ariakit.DialogDismiss className="button secondary">Cancel</Ariakit.DialogDismiss>
        <button type="button" className={props.danger === true ? 'button danger' : 'button'} disabled={props.busy} onClick={props.onConfirm}>
          {props.confirmLabel}
        </button>
      </div>
    </Modal>
  );
}
