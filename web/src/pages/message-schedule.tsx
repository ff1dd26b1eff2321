import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { cancelSchedule, messageKeys } from '../api/messages.ts';
import { conflictStatus } from '../api/http.ts';
import type { MessageView } from '../api/types.ts';
import { ConfirmDialog } from '../components/dialog.tsx';
import { ErrorNotice } from '../components/query-state.tsx';
import { Time } from '../components/time.tsx';

/** A scheduled message's cancel: asked to confirm, then DELETE /v1/messages/:msgid/schedule (refunded by herald). */
export function CancelSchedule(props: { message: MessageView }) {
  const { t } = useTranslation('messages');
  const client = useQueryClient();
  const [asking, setAsking] = useState(false);
  const { msgid } = props.message;
  const refresh = (): void => {
    void client.invalidateQueries({ queryKey: messageKeys.detail(msgid) });
    void client.invalidateQueries({ queryKey: ['messages'] });
  };
  const cancel = useMutation({
    mutationFn: () => cancelSchedule(msgid),
    onSuccess: () => {
      setAsking(false);
      refresh();
    },
    onError: refresh,
  });
  const conflict = conflictStatus(cancel.error);
  return (
    <>
      <button type="button" className="button secondary" onClick={() => { cancel.reset(); setAsking(true); }}>{t('schedule.cancel')}</button>
      <ConfirmDialog open={asking} onClose={() => setAsking(false)} title={t('schedule.cancelTitle')} confirmLabel={t('schedule.cancelConfirm')} danger
        busy={cancel.isPending} onConfirm={() => cancel.mutate()}>
        <p>{t('schedule.cancelText')} {props.message.send_at === undefined ? null : <Time iso={props.message.send_at} />}</p>
        {cancel.isError ? <><ErrorNotice error={cancel.error} />{conflict === undefined ? null : <p>{t('schedule.conflict', { status: conflict })}</p>}</> : null}
      </ConfirmDialog>
    </>
  );
}
