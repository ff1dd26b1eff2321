import { useEffect, type ReactNode } from 'react';

/** A page's heading and actions; sets the document title so history and tabs say where one is. */
export function Page(props: { title: string; description?: ReactNode; actions?: ReactNode; children: ReactNode }) {
  useEffect(() => {
    document.title = `${props.title} · herald`;
  }, [props.title]);
  return (
    <>
      <div className="page-head">
        <div>
          <h1>{props.title}</h1>
          {props.description === undefined ? null : <p className="lede">{props.description}</p>}
        </div>
        {props.actions === undefined ? null : <div className="page-actions">{props.actions}</div>}
      </div>
      {props.children}
    </>
  );
}

/** A titled block of a page. */
export function Section(props: { title: string; id?: string; actions?: ReactNode; children: ReactNode }) {
  const headingId = `${props.id ?? props.title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-heading`;
  return (
    <section className="card" aria-labelledby={headingId}>
      <div className="card-head">
        <h2 id={headingId}>{props.title}</h2>
        {props.actions}
      </div>
      {props.children}
    </section>
  );
}
