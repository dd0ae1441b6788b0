// Tables of records (tokens, users, channels, deliveries): React Aria's table with our classes,
// so rows are reachable by keyboard and announced with their column names.
import {
  Cell as AriaCell,
  Column as AriaColumn,
  Row as AriaRow,
  Table as AriaTable,
  TableBody as AriaTableBody,
  TableHeader as AriaTableHeader,
  type CellProps,
  type ColumnProps,
  type RowProps,
  type TableBodyProps,
  type TableHeaderProps,
  type TableProps,
} from 'react-aria-components';

const cls = (base: string, extra: unknown) => [base, typeof extra === 'string' ? extra : ''].filter(Boolean).join(' ');

export function Table({ className, ...props }: TableProps) {
  return (
    <div className="table-wrap">
      <AriaTable {...props} className={cls('table', className)} />
    </div>
  );
}

export function TableHeader<T extends object>({ className, ...props }: TableHeaderProps<T>) {
  return <AriaTableHeader {...props} className={cls('table-header', className)} />;
}

export function Column({ className, ...props }: ColumnProps) {
  return <AriaColumn {...props} className={cls('table-column', className)} />;
}

export function TableBody<T extends object>({ className, ...props }: TableBodyProps<T>) {
  return <AriaTableBody {...props} className={cls('table-body', className)} />;
}

export function Row<T extends object>({ className, ...props }: RowProps<T>) {
  return <AriaRow {...props} className={cls('table-row', className)} />;
}

export function Cell({ className, ...props }: CellProps) {
  return <AriaCell {...props} className={cls('table-cell', className)} />;
}
