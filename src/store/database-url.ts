/** Which store a database URL names: a postgres:// (or postgresql://) URL, or else a SQLite file path. */
export function isSqliteUrl(url: string): boolean {
  return !/^postgres(ql)?:\/\//.test(url);
}
