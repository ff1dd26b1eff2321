import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import {
  campaignKeys, deleteCampaign, moveCampaign, quoteQuery as campaignQuote, resendCampaign, RESEND_TARGETS, sendCampaignTest, type Move,
} from '../api/campaigns.ts';
import { ApiError } from '../api/http.ts';
import type { CampaignView, ResendTarget } from '../api/types.ts';
import { ConfirmDialog, Modal } from '../components/dialog.tsx';
import { SelectField, TextArea, TextField } from '../components/field.tsx';
import { Section } from '../components/page.tsx';
import { ErrorNotice, Loading, QueryState } from '../components/query-state.tsx';
import { Time } from '../components/time.tsx';
import { formatCount } from '../lib/format.ts';

// A quote is asked again on every look: the audience and the balance change by themselves.
const quoteQuery = (campaignId: string) => ({ ...campaignQuote(campaignId), staleTime: 0 }) as const;

/** What a move does, said before it is made. */
const MOVES: Record<Move, { title: string; confirm: string; text: string; danger?: boolean }> = {
  send: { title: 'Send this campaign?', confirm: 'Send', text: '' },
  pause: { title: 'Pause this campaign?', confirm: 'Pause', text: 'herald stops making messages at the next batch. Messages already made still go; resume carries on from the next contact.' },
  resume: { title: 'Resume this campaign?', confirm: 'Resume', text: 'herald carries on making messages after the last contact it reached.' },
  cancel: { title: 'Cancel this campaign?', confirm: 'Cancel campaign', danger: true, text: 'The campaign ends now. Messages already made still go; what was debited and never made into a message is refunded to the account. This cannot be undone.' },
};

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

/** herald's 409 names the status the campaign is in now. */
function conflictNote(error: unknown): string | undefined {
  if (!(error instanceof ApiError) || error.status !== 409) return undefined;
  const status = (error.body as { status?: unknown } | undefined)?.status;
  return typeof status === 'string' ? `It is ${status} now.` : undefined;
}

export function CampaignActions(props: { campaign: CampaignView; canWrite: boolean; userEmail: string }) {
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
  const details = move === undefined ? undefined : MOVES[move];
  return (
    <div className="action-bar">
      {moves.map((m) => (
        <button key={m} type="button" className={m === 'cancel' ? 'button secondary' : 'button'} onClick={() => { act.reset(); setMove(m); }}>
          {m === 'send' && c.send_at !== null ? 'Schedule' : MOVES[m].confirm}
        </button>
      ))}
      {editable ? <Link className="button secondary" to={`/campaigns/${c.campaign_id}/edit`}>Edit</Link> : null}
      <button type="button" className="button secondary" onClick={() => setTesting(true)}>Send a test</button>
      {followable ? <button type="button" className="button secondary" onClick={() => setFollowing(true)}>Follow up</button> : null}
      {c.status === 'draft' ? <button type="button" className="button secondary" onClick={() => setDeleting(true)}>Delete</button> : null}

      <ConfirmDialog open={details !== undefined} onClose={() => setMove(undefined)} title={details?.title ?? ''}
        confirmLabel={move === 'send' && c.send_at !== null ? 'Schedule' : details?.confirm ?? ''} danger={details?.danger === true}
        busy={act.isPending} onConfirm={() => move !== undefined && act.mutate(move)}>
        {move === 'send' ? <SendSummary campaign={c} /> : <p>{details?.text}</p>}
        {act.isError ? <><ErrorNotice error={act.error} />{conflictNote(act.error) === undefined ? null : <p>{conflictNote(act.error)}</p>}</> : null}
      </ConfirmDialog>
      <ConfirmDialog open={deleting} onClose={() => { setDeleting(false); remove.reset(); }} title="Delete this draft?" confirmLabel="Delete draft" danger
        busy={remove.isPending} onConfirm={() => remove.mutate()}>
        <p>“{c.name}” goes. Nothing was sent or billed for it.</p>
        {remove.isError ? <ErrorNotice error={remove.error} /> : null}
      </ConfirmDialog>
      <TestSend campaign={c} open={testing} onClose={() => setTesting(false)} userEmail={props.userEmail} />
      <FollowUp campaign={c} open={following} onClose={() => setFollowing(false)} />
    </div>
  );
}

/** The send's confirmation: who gets it, who not and why, and what it debits (GET …/quote, asked afresh). */
function SendSummary(props: { campaign: CampaignView }) {
  const quote = useQuery(quoteQuery(props.campaign.campaign_id));
  if (quote.isPending) return <Loading label="Counting the recipients…" />;
  if (quote.isError) return <ErrorNotice error={quote.error} onRetry={() => void quote.refetch()} />;
  const q = quote.data;
  return (
    <>
      <p>
        {props.campaign.send_at === null ? 'herald starts sending now' : <>herald starts sending at <Time iso={props.campaign.send_at} /></>} to <strong>{formatCount(q.recipients)}</strong> contact{q.recipients === 1 ? '' : 's'},
        and debits <strong>{formatCount(q.messages)}</strong> message{q.messages === 1 ? '' : 's'} now (the account has {formatCount(q.messages_left)}).
      </p>
      {q.messages > q.messages_left ? <p className="warning">The account has too few messages left: herald will refuse the send.</p> : null}
      {q.recipients === 0 ? <p className="warning">Nobody in the audience can receive it now: herald will refuse the send.</p> : null}
      <p className="hint">After the send the audience is fixed; pause, resume and cancel stay possible, and cancel refunds what was never sent.</p>
    </>
  );
}

/** A draft's audience as herald would send it now. */
export function QuotePanel(props: { campaign: CampaignView }) {
  const quote = useQuery(quoteQuery(props.campaign.campaign_id));
  return (
    <Section title="Audience now" actions={<button type="button" className="button small secondary" onClick={() => void quote.refetch()} disabled={quote.isFetching}>Count again</button>}>
      <QueryState query={quote}>
        {(q) => (
          <>
            <dl className="stats">
              <div className="stat"><dt>Recipients</dt><dd>{formatCount(q.recipients)}<span className="stat-note">one message each</span></dd></div>
              <div className="stat"><dt>Messages left</dt><dd>{formatCount(q.messages_left)}<span className="stat-note">{q.messages > q.messages_left ? 'too few for this send' : 'enough for this send'}</span></dd></div>
            </dl>
            <h3 className="subhead">Not reached, and why</h3>
            <ul className="plain-list">
              <li>{formatCount(q.excluded.unsubscribed)} unsubscribed from the lists</li>
              <li>{formatCount(q.excluded.unconfirmed)} not confirmed yet</li>
              <li>{formatCount(q.excluded.suppressed)} on the suppression list</li>
              <li>{formatCount(q.excluded.excluded_lists)} on a list left out</li>
              <li>{formatCount(q.excluded.filtered)} not matching the conditions</li>
            </ul>
          </>
        )}
      </QueryState>
    </Section>
  );
}

function TestSend(props: { campaign: CampaignView; open: boolean; onClose: () => void; userEmail: string }) {
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
    <Modal open={props.open} onClose={close} title="Send a test">
      <form onSubmit={submit} noValidate className="dialog-body">
        <TextArea label="Send to" rows={2} value={text} onChange={(e) => setText(e.target.value)}
          hint="Up to 10 addresses. Each gets the message as its contact would (an unknown address: as a contact without name or attributes), billed as an ordinary email."
          error={emails.length > 10 ? 'At most 10 addresses' : undefined} />
        {test.isError ? <ErrorNotice error={test.error} /> : null}
        {test.isSuccess ? (
          <div role="status">
            <p>Sent. Follow each in the messages log:</p>
            <ul>{test.data.to.map((t) => <li key={t.msgid}><Link to={`/messages/${t.msgid}`}>{t.email}</Link></li>)}</ul>
          </div>
        ) : null}
        <div className="dialog-actions">
          <button type="button" className="button secondary" onClick={close}>Close</button>
          <button type="submit" className="button" disabled={test.isPending || emails.length === 0 || emails.length > 10}>Send test</button>
        </div>
      </form>
    </Modal>
  );
}

function FollowUp(props: { campaign: CampaignView; open: boolean; onClose: () => void }) {
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
    <Modal open={props.open} onClose={() => { resend.reset(); props.onClose(); }} title="Follow up">
      <form onSubmit={submit} noValidate className="dialog-body">
        <p>A new draft with the same content and lists, for the contacts who received this campaign and did not act on it. Only human opens and clicks count (machine opens, such as mail privacy proxies, do not).</p>
        <SelectField label="Send to" value={to} onChange={(e) => setTo(e.target.value === 'not_clicked' ? 'not_clicked' : 'not_opened')}>
          {RESEND_TARGETS.map((t) => <option key={t.value} value={t.value}>{t.label}</option>)}
        </SelectField>
        <TextField label="New subject (optional)" value={subject} onChange={(e) => setSubject(e.target.value)} maxLength={998} placeholder={props.campaign.subject} />
        {resend.isError ? <ErrorNotice error={resend.error} /> : null}
        <div className="dialog-actions">
          <button type="button" className="button secondary" onClick={() => { resend.reset(); props.onClose(); }}>Close</button>
          <button type="submit" className="button" disabled={resend.isPending}>Create the follow-up draft</button>
        </div>
      </form>
    </Modal>
  );
}
