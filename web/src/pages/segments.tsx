import { useState } from 'react';
import { Link } from 'react-router';
import { allows, useSession } from '../api/session.ts';
import { CopyButton } from '../components/copy-button.tsx';
import { Page, Section } from '../components/page.tsx';
import { AudienceEditor, SegmentCount } from './segments-builder.tsx';
import { EMPTY_AUDIENCE, segmentRequestOf, type Audience } from './segments-model.ts';
import './campaigns.css';

/**
 * Build an audience and see it counted as it changes. herald keeps no segment of its
 * own (a campaign holds its lists and filter): a segment built here becomes a campaign's
 * audience, or is copied as the JSON the API takes.
 */
export default function SegmentsPage() {
  const session = useSession();
  const canWrite = allows(session.data?.user.role ?? 'viewer', 'write');
  const [audience, setAudience] = useState<Audience>(EMPTY_AUDIENCE);
  const request = segmentRequestOf(audience);
  const json = request.ok ? JSON.stringify(request.value) : undefined;
  return (
    <Page title="Segments" description="Lists, minus lists, narrowed by conditions on contacts and what they did with earlier campaigns. Counted live.">
      <Section title="Audience">
        <AudienceEditor value={audience} onChange={setAudience} />
      </Section>
      <Section title="Count">
        <SegmentCount audience={audience} />
        {canWrite && request.ok ? <p><Link className="button wrapping" to="/campaigns/new" state={{ audience }}>Create a campaign for this audience</Link></p> : null}
        {json === undefined ? null : (
          <p className="row"><span className="hint">The audience as the JSON of <code>POST /v1/segments/count</code></span> <CopyButton text={json} label="Copy the audience as JSON" /></p>
        )}
      </Section>
    </Page>
  );
}
