export { Button, ButtonLink, Link, type Variant } from './button';
export { TextField, SelectField, CheckboxField } from './field';
export { Table, TableHeader, Column, TableBody, Row, Cell } from './table';
export { AppDialog, ConfirmDialog } from './dialog';
export { CopyButton } from './copy-button';
export { toast, Toasts } from './toast';
export { Loading, ErrorMessage, Notice, useLoad } from './status';
export { formatTime, formatRelative } from './format';
