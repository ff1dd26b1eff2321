import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { deleteSegment, replaceSegment, saveSegment, savedSegmentsQuery, segmentKeys } from '../api/segments.ts';
import { allows, useSession } from '../api/session.ts';
import type { Filter, SavedSegmentView } from '../api/types.ts';
import { CopyButton } from '../components/copy-button.tsx';
import { DataTable } from '../components/data-table.tsx';
import { ConfirmDialog } from '../components/dialog.tsx';
import { TextField } from '../components/field.tsx';
import { Page, Section } from '../components/page.tsx';
import { Empty, ErrorNotice, QueryState } from '../components/query-state.tsx';
import { Time } from '../components/time.tsx';
import { formatCount } from '../lib/format.ts';
import { AudienceEditor, SegmentCount } from './segments-builder.tsx';
import { audienceOf, EMPTY_AUDIENCE, segmentRequestOf, type Audience } from './segments-model.ts';
import './campaigns.css';

/** The route whose body the audience's JSON is. */
const COUNT_ROUTE = 'POST /v1/segments/count';

/**
 * Build an audience, see it counted as it changes, and keep it by name. A saved segment
 * is a starting point: a campaign made from it copies its lists and filter.
 */
export default function SegmentsPage() {
  const { t } = useTranslation('audience');
  const session = useSession();
  const canWrite = allows(session.data?.user.role ?? 'viewer', 'write');
  const [audience, setAudience] = useState<Audience>(EMPTY_AUDIENCE);
  const [opened, setOpened] = useState<SavedSegmentView | undefined>();
  const request = segmentRequestOf(audience);
  const json = request.ok ? JSON.stringify(request.value) : undefined;
  const open = (segment: SavedSegmentView): void => {
    setOpened(segment);
    setAudience(audienceOf(segment.lists, segment.exclude_lists, (segment.filter ?? undefined) as Filter | undefined));
  };
  return (
    <Page title={t('segments.title')} description={t('segments.description')}>
      <SavedSegments canWrite={canWrite} onOpen={open} opened={opened} onDeleted={(id) => { if (opened?.segment_id === id) setOpened(undefined); }} />
      <Section title={opened === undefined ? t('segments.audience') : t('segments.editing', { name: opened.name })}>
        <AudienceEditor value={audience} onChange={setAudience} />
      </Section>
      <Section title={t('segments.count')}>
        <SegmentCount audience={audience} />
        {canWrite && request.ok ? <p><Link className="button wrapping" to="/campaigns/new" state={{ audience }}>{t('segments.createCampaign')}</Link></p> : null}
        {json === undefined ? null : (
          <p className="row"><span className="hint">{t('segments.asJson')} <code>{COUNT_ROUTE}</code></span> <CopyButton text={json} label={t('segments.copyJson')} /></p>
        )}
      </Section>
      {canWrite ? <SaveSegment key={opened?.segment_id ?? 'new'} audience={audience} opened={opened} onSaved={setOpened} /> : null}
    </Page>
  );
}

function SavedSegments(props: { canWrite: boolean; opened: SavedSegmentView | undefined; onOpen: (s: SavedSegmentView) => void; onDeleted: (id: string) => void }) {
  const { t } = useTranslation('audience');
  const client = useQueryClient();
  const segments = useQuery(savedSegmentsQuery);
  const [deleting, setDeleting] = useState<SavedSegmentView | undefined>();
  const remove = useMutation({
    mutationFn: (id: string) => deleteSegment(id),
    onSuccess: (_answer, id) => {
      setDeleting(undefined);
      props.onDeleted(id);
      void client.invalidateQueries({ queryKey: segmentKeys.saved });
    },
  });
  return (
    <Section title={t('saved.title')}>
      <QueryState query={segments} isEmpty={(d) => d.segments.length === 0} empty={<Empty title={t('saved.none')}>{props.canWrite ? <p>{t('saved.noneHint')}</p> : null}</Empty>}>
        {(data) => (
          <>
            <p className="hint">{t('saved.count', { count: data.segments.length, formatted: formatCount(data.segments.length) })}</p>
            <DataTable rows={data.segments} rowKey={(s) => s.segment_id} columns={[
              { header: t('saved.name'), cell: (s) => <strong>{s.name}</strong> },
              { header: t('saved.lists'), num: true, cell: (s) => formatCount(s.lists.length) },
              { header: t('saved.filter'), cell: (s) => (s.filter === null ? t('saved.noFilter') : t('saved.hasFilter')) },
              { header: t('saved.updated'), cell: (s) => <Time iso={s.updated_at} /> },
              { header: t('contact.actions'), hiddenHeader: true, cell: (s) => (
                <div className="row">
                  <button type="button" className="button small secondary" onClick={() => props.onOpen(s)} aria-label={t('saved.openNamed', { name: s.name })}
                    aria-pressed={props.opened?.segment_id === s.segment_id}>{t('saved.open')}</button>
                  {props.canWrite ? <button type="button" className="button small danger" onClick={() => setDeleting(s)} aria-label={t('saved.deleteNamed', { name: s.name })}>{t('saved.delete')}</button> : null}
                </div>
              ) },
            ]} />
          </>
        )}
      </QueryState>
      <ConfirmDialog open={deleting !== undefined} onClose={() => { setDeleting(undefined); remove.reset(); }} title={t('saved.deleteTitle')} confirmLabel={t('saved.delete')} danger
        busy={remove.isPending} onConfirm={() => deleting !== undefined && remove.mutate(deleting.segment_id)}>
        <p>{t('saved.deleteBody', { name: deleting?.name ?? '' })}</p>
        {remove.isError ? <ErrorNotice error={remove.error} /> : null}
      </ConfirmDialog>
    </Section>
  );
}

function SaveSegment(props: { audience: Audience; opened: SavedSegmentView | undefined; onSaved: (s: SavedSegmentView) => void }) {
  const { t } = useTranslation('audience');
  const client = useQueryClient();
  const [name, setName] = useState(props.opened?.name ?? '');
  const request = segmentRequestOf(props.audience);
  const save = useMutation({
    mutationFn: (asNew: boolean) => {
      if (!request.ok) throw new Error(request.error);
      const body = { ...request.value, name: name.trim() };
      return props.opened === undefined || asNew ? saveSegment(body) : replaceSegment(props.opened.segment_id, body);
    },
    onSuccess: (saved) => {
      props.onSaved(saved);
      void client.invalidateQueries({ queryKey: segmentKeys.saved });
    },
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (name.trim() !== '' && request.ok) save.mutate(false);
  };
  const ready = name.trim() !== '' && request.ok && !save.isPending;
  return (
    <Section title={props.opened === undefined ? t('save.title') : t('save.titleOpened')}>
      <form className="inline-form" onSubmit={submit} noValidate>
        <TextField label={t('save.name')} value={name} onChange={(e) => { setName(e.target.value); save.reset(); }} maxLength={200} autoComplete="off"
          hint={request.ok ? undefined : t('save.needsAudience')} />
        <button type="submit" className="button" disabled={!ready}>{props.opened === undefined ? t('save.submit') : t('save.replace')}</button>
        {props.opened === undefined ? null : <button type="button" className="button secondary" disabled={!ready} onClick={() => save.mutate(true)}>{t('save.asNew')}</button>}
      </form>
      {save.isError ? <ErrorNotice error={save.error} /> : null}
      {save.isSuccess ? <p className="notice" role="status">{t('save.done', { name: save.data.name })}</p> : null}
    </Section>
  );
}
