import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import {
  campaignKeys, deleteCampaign, moveCampaign, quoteQuery as campaignQuote, resendCampaign, RESEND_TARGETS, sendCampaignTest, type Move,
} from '../api/campaigns.ts';
import { conflictStatus } from '../api/http.ts';
import type { CampaignView, ResendTarget } from '../api/types.ts';
import { ConfirmDialog, Modal } from '../components/dialog.tsx';
import { SelectField, TextArea, TextField } from '../components/field.tsx';
import { Section } from '../components/page.tsx';
import { ErrorNotice, Loading, QueryState } from '../components/query-state.tsx';
import { Time } from '../components/time.tsx';
import { formatCount } from '../lib/format.ts';
import { TemplateName } from './campaign-template-name.tsx';

// A quote is asked again on every look: the audience and the balance change by themselves.
const quoteQuery = (campaignId: string) => ({ ...campaignQuote(campaignId), staleTime: 0 }) as const;

/** What a move does is said before it is made: `moves.<move>.title`, `.confirm` and `.text` in the catalogue. */
const DANGEROUS: ReadonlySet<Move> = new Set(['cancel']);

/** The moves the status allows (docs/campaigns.md: draft → scheduled → running ⇄ paused → finished | cancelled). */
function movesOf(status: CampaignView['status']): Move[] {
  switch (status) {
    case 'draft': return ['send'];
    case 'scheduled': return ['cancel'];
    case 'running': return ['pause', 'cancel'];
    case 'paused': return ['resume', 'cancel'];
    default: return [];
  }
}

export function CampaignActions(props: { campaign: CampaignView; canWrite: boolean; userEmail: string }) {
  const { t } = useTranslation('campaign');
  const client = useQueryClient();
  const navigate = useNavigate();
  const c = props.campaign;
  const [move, setMove] = useState<Move | undefined>();
  const [deleting, setDeleting] = useState(false);
  const [testing, setTesting] = useState(false);
  const [following, setFollowing] = useState(false);
  const refresh = (): void => {
    void client.invalidateQueries({ queryKey: campaignKeys.detail(c.campaign_id) });
    void client.invalidateQueries({ queryKey: campaignKeys.all });
    void client.invalidateQueries({ queryKey: campaignKeys.stats(c.campaign_id) });
  };
  const act = useMutation({
    mutationFn: (m: Move) => moveCampaign(c.campaign_id, m),
    onSuccess: (saved) => {
      setMove(undefined);
      client.setQueryData(campaignKeys.detail(saved.campaign_id), saved);
      refresh();
    },
    onError: refresh,
  });
  const remove = useMutation({
    mutationFn: () => deleteCampaign(c.campaign_id),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: campaignKeys.all });
      navigate('/campaigns', { replace: true });
    },
  });
  if (!props.canWrite) return null;
  const moves = movesOf(c.status);
  const editable = c.status === 'draft' || c.status === 'scheduled' || c.status === 'paused';
  const followable = c.status === 'running' || c.status === 'paused' || c.status === 'finished' || c.status === 'cancelled';
  const confirmLabel = (m: Move): string => (m === 'send' && c.send_at !== null ? t('moves.schedule') : t(`moves.${m}.confirm`));
  const conflict = conflictStatus(act.error);
  return (
    <div className="action-bar">
      {moves.map((m) => (
        <button key={m} type="button" className={m === 'cancel' ? 'button secondary' : 'button'} onClick={() => { act.reset(); setMove(m); }}>
          {confirmLabel(m)}
        </button>
      ))}
      {editable ? <Link className="button secondary" to={`/campaigns/${c.campaign_id}/edit`}>{t('actions.edit')}</Link> : null}
      <button type="button" className="button secondary" onClick={() => setTesting(true)}>{t('actions.sendTest')}</button>
      {followable ? <button type="button" className="button secondary" onClick={() => setFollowing(true)}>{t('actions.followUp')}</button> : null}
      {c.status === 'draft' ? <button type="button" className="button secondary" onClick={() => setDeleting(true)}>{t('actions.delete')}</button> : null}

      <ConfirmDialog open={move !== undefined} onClose={() => setMove(undefined)} title={move === undefined ? '' : t(`moves.${move}.title`)}
        confirmLabel={move === undefined ? '' : confirmLabel(move)} danger={move !== undefined && DANGEROUS.has(move)}
        busy={act.isPending} onConfirm={() => move !== undefined && act.mutate(move)}>
        {move === undefined ? null : move === 'send' ? <SendSummary campaign={c} /> : <p>{t(`moves.${move}.text`)}</p>}
        {act.isError ? <><ErrorNotice error={act.error} />{conflict === undefined ? null : <p>{t('moves.conflict', { status: conflict })}</p>}</> : null}
      </ConfirmDialog>
      <ConfirmDialog open={deleting} onClose={() => { setDeleting(false); remove.reset(); }} title={t('deleteDraft.title')} confirmLabel={t('deleteDraft.confirm')} danger
        busy={remove.isPending} onConfirm={() => remove.mutate()}>
        <p>{t('deleteDraft.text', { name: c.name })}</p>
        {remove.isError ? <ErrorNotice error={remove.error} /> : null}
      </ConfirmDialog>
      <TestSend campaign={c} open={testing} onClose={() => setTesting(false)} userEmail={props.userEmail} />
      <FollowUp campaign={c} open={following} onClose={() => setFollowing(false)} />
    </div>
  );
}

/** The send's confirmation: who gets it, who not and why, and what it debits (GET …/quote, asked afresh). */
function SendSummary(props: { campaign: CampaignView }) {
  const { t } = useTranslation('campaign');
  const quote = useQuery(quoteQuery(props.campaign.campaign_id));
  if (quote.isPending) return <Loading label={t('summary.counting')} />;
  if (quote.isError) return <ErrorNotice error={quote.error} onRetry={() => void quote.refetch()} />;
  const q = quote.data;
  const c = props.campaign;
  return (
    <>
      <p>
        {c.send_at === null ? t('summary.startsNow') : <Trans t={t} i18nKey="summary.startsAt" components={{ time: <Time iso={c.send_at} /> }} />}{' '}
        <Trans t={t} i18nKey="summary.audience" count={q.recipients} values={{ recipients: formatCount(q.recipients) }} components={{ strong: <strong /> }} />{' '}
        <Trans t={t} i18nKey="summary.debit" count={q.messages} values={{ messages: formatCount(q.messages), left: formatCount(q.messages_left) }} components={{ strong: <strong /> }} />
      </p>
      {/* The campaign's content named, so the send is confirmed knowing what goes out. */}
      <p>{c.template_id === null ? t('summary.ownBody') : <>{t('summary.template')} <TemplateName templateId={c.template_id} /></>}</p>
      {q.messages > q.messages_left ? <p className="warning">{t('summary.tooFew')}</p> : null}
      {q.recipients === 0 ? <p className="warning">{t('summary.nobody')}</p> : null}
      <p className="hint">{t('summary.after')}</p>
    </>
  );
}

/** A draft's audience as herald would send it now. */
export function QuotePanel(props: { campaign: CampaignView }) {
  const { t } = useTranslation('campaign');
  const quote = useQuery(quoteQuery(props.campaign.campaign_id));
  return (
    <Section title={t('quote.title')} actions={<button type="button" className="button small secondary" onClick={() => void quote.refetch()} disabled={quote.isFetching}>{t('quote.countAgain')}</button>}>
      <QueryState query={quote}>
        {(q) => (
          <>
            <dl className="stats">
              <div className="stat"><dt>{t('quote.recipients')}</dt><dd>{formatCount(q.recipients)}<span className="stat-note">{t('quote.oneEach')}</span></dd></div>
              <div className="stat"><dt>{t('quote.messagesLeft')}</dt><dd>{formatCount(q.messages_left)}<span className="stat-note">{q.messages > q.messages_left ? t('quote.tooFew') : t('quote.enough')}</span></dd></div>
            </dl>
            <h3 className="subhead">{t('quote.notReached')}</h3>
            <ul className="plain-list">
              <li>{t('quote.unsubscribed', { count: q.excluded.unsubscribed, formatted: formatCount(q.excluded.unsubscribed) })}</li>
              <li>{t('quote.unconfirmed', { count: q.excluded.unconfirmed, formatted: formatCount(q.excluded.unconfirmed) })}</li>
              <li>{t('quote.suppressed', { count: q.excluded.suppressed, formatted: formatCount(q.excluded.suppressed) })}</li>
              <li>{t('quote.excludedLists', { count: q.excluded.excluded_lists, formatted: formatCount(q.excluded.excluded_lists) })}</li>
              <li>{t('quote.filtered', { count: q.excluded.filtered, formatted: formatCount(q.excluded.filtered) })}</li>
            </ul>
          </>
        )}
      </QueryState>
    </Section>
  );
}

function TestSend(props: { campaign: CampaignView; open: boolean; onClose: () => void; userEmail: string }) {
  const { t } = useTranslation('campaign');
  const [text, setText] = useState(props.userEmail);
  const emails = text.split(/[\s,;]+/).map((e) => e.trim()).filter(Boolean);
  const test = useMutation({
    mutationFn: () => sendCampaignTest(props.campaign.campaign_id, emails),
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (emails.length > 0 && emails.length <= 10) test.mutate();
  };
  const close = (): void => {
    test.reset();
    props.onClose();
  };
  return (
    <Modal open={props.open} onClose={close} title={t('testSend.title')}>
      <form onSubmit={submit} noValidate className="dialog-body">
        <TextArea label={t('testSend.to')} rows={2} value={text} onChange={(e) => setText(e.target.value)}
          hint={t('testSend.hint')}
          error={emails.length > 10 ? t('testSend.tooMany') : undefined} />
        {test.isError ? <ErrorNotice error={test.error} /> : null}
        {test.isSuccess ? (
          <div role="status">
            <p>{t('testSend.sent')}</p>
            <ul>{test.data.to.map((r) => <li key={r.msgid}><Link to={`/messages/${r.msgid}`}>{r.email}</Link></li>)}</ul>
          </div>
        ) : null}
        <div className="dialog-actions">
          <button type="button" className="button secondary" onClick={close}>{t('close')}</button>
          <button type="submit" className="button" disabled={test.isPending || emails.length === 0 || emails.length > 10}>{t('testSend.send')}</button>
        </div>
      </form>
    </Modal>
  );
}

function FollowUp(props: { campaign: CampaignView; open: boolean; onClose: () => void }) {
  const { t } = useTranslation('campaign');
  const client = useQueryClient();
  const navigate = useNavigate();
  const [to, setTo] = useState<ResendTarget>('not_opened');
  const [subject, setSubject] = useState('');
  const resend = useMutation({
    mutationFn: () => resendCampaign(props.campaign.campaign_id, { to, ...(subject.trim() === '' ? {} : { subject: subject.trim() }) }),
    onSuccess: (created) => {
      void client.invalidateQueries({ queryKey: campaignKeys.all });
      props.onClose();
      navigate(`/campaigns/${created.campaign_id}`);
    },
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    resend.mutate();
  };
  return (
    <Modal open={props.open} onClose={() => { resend.reset(); props.onClose(); }} title={t('followUp.title')}>
      <form onSubmit={submit} noValidate className="dialog-body">
        <p>{t('followUp.text')}</p>
        <SelectField label={t('followUp.to')} value={to} onChange={(e) => setTo(e.target.value === 'not_clicked' ? 'not_clicked' : 'not_opened')}>
          {RESEND_TARGETS.map((target) => <option key={target.value} value={target.value}>{t(`followUp.targets.${target.value}`)}</option>)}
        </SelectField>
        <TextField label={t('followUp.subject')} value={subject} onChange={(e) => setSubject(e.target.value)} maxLength={998} placeholder={props.campaign.subject} />
        {resend.isError ? <ErrorNotice error={resend.error} /> : null}
        <div className="dialog-actions">
          <button type="button" className="button secondary" onClick={() => { resend.reset(); props.onClose(); }}>{t('close')}</button>
          <button type="submit" className="button" disabled={resend.isPending}>{t('followUp.create')}</button>
        </div>
      </form>
    </Modal>
  );
}
