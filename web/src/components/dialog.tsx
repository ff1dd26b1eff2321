import * as Ariakit from '@ariakit/react';
import type { ReactNode, RefObject } from 'react';
import { useTranslation } from 'react-i18next';

/** A modal dialog (Ariakit: focus trapped and restored, Escape closes, the page behind is inert). */
/** `finalFocus`: where focus goes on closing when the control that opened the dialog is gone or disabled. */
export function Modal(props: { open: boolean; onClose: () => void; title: string; children: ReactNode; wide?: boolean; finalFocus?: RefObject<HTMLElement | null> }) {
  return (
    <Ariakit.Dialog
      open={props.open}
      onClose={props.onClose}
      {...(props.finalFocus === undefined ? {} : { finalFocus: props.finalFocus })}
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
  const { t } = useTranslation('common');
  return (
    <Modal open={props.open} onClose={props.onClose} title={props.title}>
      <div className="dialog-body">{props.children}</div>
      <div className="dialog-actions">
        <Ariakit.DialogDismiss className="button secondary">{t('cancel')}</Ariakit.DialogDismiss>
        <button type="button" className={props.danger === true ? 'button danger' : 'button'} disabled={props.busy} onClick={props.onConfirm}>
          {props.confirmLabel}
        </button>
      </div>
    </Modal>
  );
}
