export const ADMIN_SOURCES: string;
export const ADMIN_OUT: string;
export function adminAppStale(): boolean;
export function buildAdminApp(options?: { logLevel?: 'info' | 'warn' | 'error' | 'silent' }): Promise<string>;
