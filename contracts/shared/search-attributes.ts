/**
 * Custom search attributes every payrun workflow sets, so an operator can filter the Temporal UI by
 * business identity: "all batches of run X", "everything for customer Y", "that orderId".
 * Visibility is not encrypted: `PayrunCustomer` holds the customer key (an HMAC of partnerClientId under
 * CUSTOMER_KEY_SECRET, `platform/customer-key.ts`), never the id; GET /v1/customers/:id/workflows
 * hashes an id the same way and answers the query to paste into the UI.
 * Registered by `npm run dev` and the test setup; on another server, create them once with
 * `temporal operator search-attribute create` (see README).
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const payrunKind = defineSearchAttributeKey('PayrunKind', SearchAttributeType.KEYWORD);
export const payrunRunId = defineSearchAttributeKey('PayrunRunId', SearchAttributeType.KEYWORD);
export const payrunOrderId = defineSearchAttributeKey('PayrunOrderId', SearchAttributeType.KEYWORD);
export const payrunCustomer = defineSearchAttributeKey('PayrunCustomer', SearchAttributeType.KEYWORD);

/**
 * A workflow's PayrunKind: its type in kebab case, which is also the prefix of its workflow id
 * (docs/naming.md), so the kind an operator filters by names the type and the records.
 */
export const kindOf = (workflowType: string): string =>
  workflowType.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

export const PAYRUN_SEARCH_ATTRIBUTES = [payrunKind, payrunRunId, payrunOrderId, payrunCustomer];
