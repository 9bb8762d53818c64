import type { Role } from '../auth/roles';

/**
 * Who may read the audit log, wherever its entries are shown (the log, its CSV, a record's timeline);
 * admin always may. The entries name people and what they chose, so a duty role sees none of them.
 */
export const AUDIT_READERS: readonly Role[] = ['viewer'];
