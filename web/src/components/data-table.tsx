import type { ReactNode } from 'react';

/** One column: its header and what each row shows in it. */
export interface Column<Row> {
  readonly header: ReactNode;
  /** Said to screen readers only (an actions column has no visible header). */
  readonly hiddenHeader?: boolean;
  /** A number: right-aligned, header and cells. */
  readonly num?: boolean;
  /** Classes of the column's cells only (not its header). */
  readonly cellClassName?: string;
  readonly cell: (row: Row) => ReactNode;
}

/**
 * The app's one table: scrollable and focusable on a narrow screen (it takes the keyboard's
 * arrows there), a header per column, and each row named by its first cell (a row header).
 * A column given as `false` is left out, so a role's extra column reads `canWrite && {...}`.
 */
export function DataTable<Row>(props: {
  columns: readonly (Column<Row> | false)[];
  rows: readonly Row[];
  rowKey: (row: Row, index: number) => string | number;
  /** Said to screen readers before the table (what its rows are). */
  caption?: string;
  /** Dimmed while the next page is on its way (the previous one stays shown). */
  loading?: boolean;
}) {
  const columns = props.columns.filter((c): c is Column<Row> => c !== false);
  const classOf = (column: Column<Row>, header: boolean): string | undefined => {
    const names = [column.num === true ? 'num' : '', header ? '' : column.cellClassName ?? ''].filter((n) => n !== '').join(' ');
    return names === '' ? undefined : names;
  };
  return (
    <div className="table-wrap" tabIndex={0}>
      <table className={props.loading === true ? 'loading-table' : undefined}>
        {props.caption === undefined ? null : <caption className="visually-hidden">{props.caption}</caption>}
        <thead>
          <tr>
            {columns.map((column, i) => (
              <th key={i} scope="col" className={classOf(column, true)}>
                {column.hiddenHeader === true ? <span className="visually-hidden">{column.header}</span> : column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row, r) => (
            <tr key={props.rowKey(row, r)}>
              {columns.map((column, i) => (i === 0
                ? <th key={i} scope="row" className={classOf(column, false)}>{column.cell(row)}</th>
                : <td key={i} className={classOf(column, false)}>{column.cell(row)}</td>))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
