import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { RotatedSecret } from '../api/types.ts';
import { CopyButton } from '../components/copy-button.tsx';
import { ConfirmDialog } from '../components/dialog.tsx';
import { Section } from '../components/page.tsx';
import { ErrorNotice } from '../components/query-state.tsx';
import { Time } from '../components/time.tsx';

/** An endpoint's signing secret, hidden until revealed, and its rotation (the previous secret signs for 24 hours more). */
export function SecretPanel(props: { secret: string; canWrite: boolean; rotate: () => Promise<RotatedSecret>; rotated: readonly unknown[] }) {
  const { t } = useTranslation('messages');
  const client = useQueryClient();
  const [revealed, setRevealed] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const rotate = useMutation({
    mutationFn: props.rotate,
    onSuccess: () => {
      setConfirming(false);
      setRevealed(true);
      void client.invalidateQueries({ queryKey: props.rotated });
    },
  });
  return (
    <Section title={t('webhooks.secret')}>
      <div className="copy-value">
        <code aria-label={revealed ? t('webhooks.secret') : t('webhooks.secretHidden')}>{revealed ? props.secret : `${props.secret.slice(0, 6)}${'•'.repeat(24)}`}</code>
        <button type="button" className="button small secondary" aria-pressed={revealed} onClick={() => setRevealed(!revealed)}>{revealed ? t('webhooks.hide') : t('webhooks.reveal')}</button>
        <CopyButton text={props.secret} label={t('webhooks.copySecret')} />
      </div>
      {rotate.data?.previous_secret_expires_at ? <p className="notice" role="status">{t('webhooks.rotated')} <Time iso={rotate.data.previous_secret_expires_at} /></p> : null}
      {rotate.isError ? <ErrorNotice error={rotate.error} /> : null}
      {props.canWrite ? <button type="button" className="button secondary" onClick={() => setConfirming(true)}>{t('webhooks.rotate')}</button> : null}
      <ConfirmDialog open={confirming} onClose={() => setConfirming(false)} title={t('webhooks.rotateTitle')} confirmLabel={t('webhooks.rotateConfirm')} busy={rotate.isPending} onConfirm={() => rotate.mutate()}>
        <p>{t('webhooks.rotateText')}</p>
      </ConfirmDialog>
    </Section>
  );
}

