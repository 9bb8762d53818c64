/**
 * A payout run's evidence pack: one zip an auditor checks without access to payrun. It holds what payrun
 * recorded (file hash, uploader, approvers, items, reconciliation, workflow ids, audit entries) and the
 * gateway's own signed words (its notifications exactly as verified), with a dependency-free script that
 * recomputes every hash and total and, given the merchant's keys, every notification signature.
 *
 * The pack is read-only: building it changes no record and calls no gateway, so downloading it twice
 * gives the same content (bar `generatedAt` and the audit entry of the download itself).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import JSZip from 'jszip';
import { signedNotificationsAbout } from '../../db/reports/evidence';
import { getRun, listBatches, runItems } from '../../db/payouts/runs';
import { auditEntriesAbout } from '../../db/shared/audit-log';
import type { Db } from '../../db/shared/knex';
import { notificationSpecs } from '../../gateway/operations';
import type { Principal } from '../auth/roles';
import { notFound } from '../http/errors';
import { maskName, maskNumber, seesReceiversInFull } from '../http/masking';

const KIT_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'evidence-kit');
/** The kit is part of the code: read once. */
const KIT = {
  readme: fs.readFileSync(path.join(KIT_DIR, 'README.txt')),
  verify: fs.readFileSync(path.join(KIT_DIR, 'verify.mjs')),
};

/** An audit trail of one run is short; this bounds a pathological one. */
const AUDIT_ENTRIES_LIMIT = 10_000;

const signedListOf = (kind: string): readonly string[] | null =>
  (notificationSpecs as Record<string, { signed: readonly string[] } | undefined>)[kind]?.signed ?? null;

const pretty = (value: unknown) => Buffer.from(`${JSON.stringify(value, null, 2)}\n`, 'utf8');

export async function evidencePack(db: Db, runId: string, reader: Principal): Promise<Buffer> {
  const run = await getRun(db, runId);
  if (!run) throw notFound(`Payout run ${runId}`);
  const [batches, items, audit] = await Promise.all([
    listBatches(db, runId),
    runItems(db, runId),
    auditEntriesAbout(db, { type: 'payout_run', id: runId }, AUDIT_ENTRIES_LIMIT),
  ]);
  const notifications = await signedNotificationsAbout(
    db,
    batches.map((batch) => batch.order_id),
  );
  const full = seesReceiversInFull(reader);
  const orderOfBatch = new Map(batches.map((batch) => [batch.batch_id, batch.order_id]));
  const requestIdsOf = (orderId: string) => [
    ...new Set(
      notifications
        .filter((n) => n.order_id === orderId && typeof n.signed_fields?.requestId === 'string')
        .map((n) => n.signed_fields?.requestId as string),
    ),
  ];

  const files: Record<string, Buffer> = {
    'manifest.json': pretty({
      runId: run.run_id,
      fileName: run.file_name,
      fileSha256: (run as unknown as { file_sha256: string }).file_sha256,
      fileStored: false,
      rowCount: Number(run.row_count),
      totalAmount: Number(run.total_amount),
      currency: 'VND',
      status: run.status,
      statusReason: run.status_reason,
      uploadedBy: { name: run.uploaded_by, keyId: run.uploaded_by_key, at: run.uploaded_at },
      requiredApprovers: run.required_approvers,
      approvals: run.approvals,
      decidedBy: run.decided_by
        ? { name: run.decided_by, keyId: run.decided_by_key, at: run.decided_at }
        : null,
      completedAt: run.completed_at,
      workflowIds: {
        run: run.workflow_id,
        batches: batches.map((batch) => ({
          batchId: batch.batch_id,
          orderId: batch.order_id,
          workflowId: batch.workflow_id,
          status: batch.status,
        })),
      },
      receiversMasked: !full,
      generatedAt: new Date().toISOString(),
      generatedFor: reader.name,
    }),
    'items.json': pretty(
      items.map((item) => {
        const orderId = orderOfBatch.get(item.batch_id) ?? null;
        return {
          payoutId: item.payout_id,
          row: item.row_number,
          walletId: full ? item.wallet_id : maskNumber(item.wallet_id),
          walletName: full ? item.wallet_name : maskName(item.wallet_name),
          amount: Number(item.amount),
          orderId,
          requestIds: orderId ? requestIdsOf(orderId) : [],
          state: item.state,
          resultCode: item.result_code,
          message: item.message,
          transId: item.trans_id === null ? null : String(item.trans_id),
        };
      }),
    ),
    'notifications.json': pretty(
      notifications.map((n) => ({
        kind: n.kind,
        orderId: n.order_id,
        resultCode: n.result_code,
        receivedAt: n.received_at,
        signedFieldList: signedListOf(n.kind),
        signedFields: n.signed_fields,
        unverifiedFields: n.unverified_fields,
      })),
    ),
    'reconciliation.json': pretty(run.reconciliation ?? null),
    'audit.json': pretty(audit),
  };
  const sums = Object.entries(files)
    .map(([name, bytes]) => `${createHash('sha256').update(bytes).digest('hex')}  ${name}`)
    .join('\n');
  const zip = new JSZip();
  const folder = zip.folder(`evidence-${run.run_id}`) as JSZip;
  for (const [name, bytes] of Object.entries(files)) folder.file(name, bytes);
  folder.file('SHA256SUMS', `${sums}\n`);
  folder.file('README.txt', KIT.readme);
  folder.file('verify.mjs', KIT.verify);
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}
