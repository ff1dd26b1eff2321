import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { TOP_UP_REASON_MAX } from '@herald/domain/text-limits.ts';
import { ledgerQuery, operatorKeys, topUp as addToAccount } from '../../api/operator/accounts.ts';
import type { AdminLedgerEntry, TopUpInput } from '../../api/types.ts';
import { DataTable } from '../../components/data-table.tsx';
import { TextField } from '../../components/field.tsx';
import { Section } from '../../components/page.tsx';
import { Empty, ErrorNotice, QueryState } from '../../components/query-state.tsx';
import { Time } from '../../components/time.tsx';
import { formatCount, formatMoney } from '../../lib/format.ts';
import { useFocusOn } from '../../lib/use-focus-on.ts';

/** Rows the console shows, newest first; the whole ledger is GET /admin/v1/accounts/:id/ledger. */
const SHOWN = 50;

const signed = (n: number, format: (n: number) => string): string => (n > 0 ? `+${format(n)}` : format(n));

/** Top-ups and debits with a reason the account sees, and the ledger they land in. */
export function AccountLedger(props: { id: string }) {
  const { t } = useTranslation('operator');
  const client = useQueryClient();
  const ledger = useQuery(ledgerQuery(props.id));
  const [messages, setMessages] = useState('');
  const [balance, setBalance] = useState('');
  const [reason, setReason] = useState('');
  const [touched, setTouched] = useState(false);
  const [added, setAdded] = useState<AdminLedgerEntry | undefined>();
  const topUp = useMutation({
    mutationFn: (input: TopUpInput) => addToAccount(props.id, input),
    onSuccess: async (entry) => {
      setMessages(''); setBalance(''); setReason(''); setTouched(false);
      await Promise.all([
        client.invalidateQueries({ queryKey: operatorKeys.account(props.id) }),
        client.invalidateQueries({ queryKey: operatorKeys.ledger(props.id) }),
      ]);
      setAdded(entry);
    },
  });
  const addedRef = useFocusOn<HTMLParagraphElement>(added);
  const messagesError = messages === '' || /^-?[0-9]{1,12}$/.test(messages) ? undefined : t('ledger.messagesInvalid');
  const balanceError = balance === '' || /^-?[0-9]+(\.[0-9]{1,4})?$/.test(balance) ? undefined : t('ledger.balanceInvalid');
  const reasonError = reason.trim() === '' ? t('ledger.reasonMissing') : undefined;
  const nothing = messages === '' && balance === '';
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setTouched(true);
    setAdded(undefined);
    if (messagesError !== undefined || balanceError !== undefined || reasonError !== undefined || nothing) return;
    topUp.mutate({ reason: reason.trim(), ...(messages === '' ? {} : { messages: Number(messages) }), ...(balance === '' ? {} : { balance }) });
  };
  return (
    <Section title={t('ledger.title')} id="ledger">
      <p className="lede">{t('ledger.lede')}</p>
      <form onSubmit={submit} noValidate className="form-grid">
        <TextField label={t('ledger.messages')} inputMode="numeric" value={messages} onChange={(e) => setMessages(e.target.value)} error={messagesError} hint={t('ledger.negativeHint')} />
        <TextField label={t('ledger.balance')} inputMode="decimal" value={balance} onChange={(e) => setBalance(e.target.value)} error={balanceError} hint={t('ledger.negativeHint')} />
        <div className="span-2">
          <TextField label={t('ledger.reason')} value={reason} onChange={(e) => setReason(e.target.value)} error={touched ? reasonError : undefined}
            placeholder={t('ledger.reasonPlaceholder')} maxLength={TOP_UP_REASON_MAX} required
            hint={t('ledger.reasonHint', { used: reason.length, max: TOP_UP_REASON_MAX })} />
        </div>
        {touched && nothing ? <p className="field-error span-2">{t('ledger.nothing')}</p> : null}
        {topUp.isError ? <div className="span-2"><ErrorNotice error={topUp.error} /></div> : null}
        <div className="span-2"><button type="submit" className="button" disabled={topUp.isPending}>{t('ledger.submit')}</button></div>
      </form>
      {added === undefined ? null : (
        <p className="notice" role="status" tabIndex={-1} ref={addedRef}>
          {t('ledger.added', { messages: signed(added.messagesDelta, formatCount), balance: signed(added.balanceDelta, formatMoney), reason: added.note ?? '' })}
        </p>
      )}
      <QueryState query={ledger} isEmpty={(d) => d.entries.length === 0} empty={<Empty title={t('ledger.empty')} />}>
        {(data) => (
          <>
            <DataTable caption={t('ledger.caption')} rows={[...data.entries].reverse().slice(0, SHOWN)} rowKey={(e) => e.id} columns={[
              { header: t('ledger.at'), cell: (e) => <Time iso={e.at} /> },
              { header: t('ledger.kind'), cell: (e) => <code>{e.reason}</code> },
              { header: t('ledger.messagesDelta'), num: true, cell: (e) => signed(e.messagesDelta, formatCount) },
              { header: t('ledger.balanceDelta'), num: true, cell: (e) => signed(e.balanceDelta, formatMoney) },
              { header: t('ledger.note'), cell: (e) => e.note ?? <span className="muted">—</span> },
            ]} />
            {data.entries.length > SHOWN ? <p className="hint">{t('ledger.shown', { count: SHOWN, total: formatCount(data.entries.length) })}</p> : null}
          </>
        )}
      </QueryState>
    </Section>
  );
}
