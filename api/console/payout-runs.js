// @ts-check
/** Payout runs: the list (the shared list page); a run's own page is payout-run.js, the live one. */
import { h } from './dom.js';
import { count, dateTime, vnd } from './format.js';
import { t } from './i18n.js';
import { statusBadge, workflowLink } from './ui.js';

/** @type {import('./types.js').Resource} */
export const payoutRuns = {
  name: 'runs',
  title: () => t('Payout runs'),
  intro: () => t('Newest first. This list refreshes by itself.'),
  endpoint: '/v1/payout-runs',
  key: 'runs',
  searchLabel: () => t('Search by run id or file name'),
  statuses: [
    'awaiting_approval',
    'scheduled',
    'running',
    'awaiting_funds',
    'reconciled',
    'needs_attention',
    'rejected',
    'expired',
    'cancelled',
    'refused',
  ],
  idOf: (run) => run.runId,
  listExtras: (ctx) =>
    ctx.can('upload')
      ? h('p', {}, h('a', { href: '#/upload', class: 'button primary' }, t('Upload a payout file')))
      : null,
  columns: [
    { label: () => t('Run'), value: () => null },
    { label: () => t('File'), value: (run) => run.fileName },
    { label: () => t('Status'), value: (run) => statusBadge(run.status) },
    { label: () => t('Rows'), value: (run) => count(run.rowCount), numeric: true },
    { label: () => t('Total'), value: (run) => vnd(run.totalAmount), numeric: true },
    { label: () => t('Uploaded by'), value: (run) => run.uploadedBy },
    { label: () => t('Uploaded'), value: (run) => dateTime(run.uploadedAt) },
    { label: () => t('Decided by'), value: (run) => run.decidedBy ?? '—' },
    {
      label: () => t('Workflow'),
      value: (run, ctx) => workflowLink(ctx.config, run.workflowId, 'Temporal') ?? '—',
    },
  ],
};
