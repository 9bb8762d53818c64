/**
 * payrun's one error vocabulary. A code names a refusal or a failure the same way in every layer: the
 * API answers it as `error.code`, a workflow or an activity raises it as its failure's type (what the
 * Temporal UI shows), and the API reads a failure's type as the code it answers. The gateway's own error
 * classes (gateway/errors.ts) are the protocol library's; activities map them to these codes at the
 * edge (activities/shared/gateway-calls.ts), as the API maps a parser's errors.
 *
 * `status` is the HTTP status the API answers the code with; a code with two answers (input that breaks
 * the document's rules or only ours, a quote source refusing or away) lists both, the first the usual.
 */
export const ERRORS = {
  // The request itself.
  unauthorized: { status: 401, meaning: 'No valid API key was sent.' },
  forbidden: { status: 403, meaning: "The key's roles do not allow this action." },
  not_found: { status: 404, meaning: 'The record named in the path does not exist.' },
  route_not_found: { status: 404, meaning: 'No route has this path.' },
  method_not_allowed: { status: 405, meaning: 'The path exists, not with this method.' },
  invalid_request: {
    status: [400, 422],
    meaning: 'A field breaks a rule: 400 for the OpenAPI document, 422 for a rule only payrun states.',
  },
  malformed_body: { status: 400, meaning: 'The body is not valid JSON.' },
  malformed_path: { status: 400, meaning: 'The path is not valid percent-encoded UTF-8.' },
  missing_body: { status: 400, meaning: 'The upload carried no file.' },
  body_too_large: { status: 413, meaning: 'The body is larger than its limit.' },
  unsupported_encoding: { status: 415, meaning: 'The body is not UTF-8.' },
  // The codec endpoint (Temporal's remote codec protocol).
  origin_not_allowed: { status: 403, meaning: 'This browser origin may not call the codec endpoint.' },
  decode_failed: { status: 422, meaning: 'A payload could not be decoded with the keys payrun holds.' },
  rate_limited: { status: 429, meaning: 'Too many requests; try again after Retry-After.' },
  too_many_auth_failures: { status: 429, meaning: 'Too many failed authentications from one address.' },
  internal_error: { status: 500, meaning: 'Something failed on payrun’s side; nothing is shown.' },
  // Idempotency and caller-chosen ids.
  idempotency_key_required: { status: 400, meaning: 'This route needs an Idempotency-Key header.' },
  invalid_idempotency_key: { status: 400, meaning: 'The Idempotency-Key breaks its rule.' },
  idempotency_key_reused: { status: 409, meaning: 'The key was used with another request.' },
  idempotency_request_in_progress: {
    status: 409,
    meaning: 'The first request with this key is still running.',
  },
  order_id_taken: { status: 409, meaning: 'The gateway order id belongs to another record.' },
  workflow_not_started: { status: 503, meaning: 'The record was stored but its workflow did not start yet.' },
  // Payouts.
  invalid_payout_file: { status: 422, meaning: 'The payout file has rows or columns that break a rule.' },
  upload_aborted: { status: 400, meaning: 'The upload ended before the file did.' },
  uploads_busy: { status: 503, meaning: 'Too many files are being read at once.' },
  payout_in_flight: { status: 409, meaning: 'A payout id in the file is in another run still paying.' },
  run_not_awaiting_approval: { status: 409, meaning: 'The run is not waiting for a decision.' },
  self_approval: {
    status: 403,
    meaning: 'The person who asked cannot approve it, with any of their keys or spellings of their name.',
  },
  decision_refused: {
    status: 500,
    meaning:
      'A workflow refused a decision without a valid proof from the API (forged, replayed, another key).',
  },
  run_not_waiting_for_funds: { status: 409, meaning: 'The run is not waiting for a top-up.' },
  // Retries of failed rows (docs/payout-runs.md).
  run_not_reconciled: { status: 409, meaning: 'Only a reconciled run has failed rows to retry.' },
  no_failed_rows: { status: 409, meaning: 'The run has no failed row that is not paid or being paid.' },
  retry_already_open: { status: 409, meaning: 'A retry of this run family is not finished yet.' },
  run_not_draft: { status: 409, meaning: 'The run is not a retry draft, or it was submitted or discarded.' },
  retry_draft_empty: { status: 409, meaning: 'Every row of the retry draft was removed.' },
  run_not_scheduled: {
    status: 409,
    meaning: 'The run is not scheduled (never was, or has started or ended); it cannot be cancelled.',
  },
  schedule_deleted: {
    status: 409,
    meaning: 'The recurring payout schedule was deleted; it changes no more.',
  },
  disbursement_exists: { status: 409, meaning: 'The disbursement id is used by another disbursement.' },
  // Approvals of outgoing money (docs/approvals.md).
  daily_cap_exceeded: {
    status: 422,
    meaning:
      'The request would take a daily cap of the approval policy past its limit; nothing was recorded.',
  },
  approval_not_pending: { status: 409, meaning: 'The item is not waiting for approval.' },
  approval_already_given: { status: 409, meaning: 'This person has decided on the item already.' },
  own_request: { status: 403, meaning: 'The person who asked for a payment cannot approve it.' },
  // The hold switch (contracts/holds).
  hold_state: { status: 409, meaning: 'The kind’s hold is not in a state that allows this action.' },
  hold_release_mismatch: {
    status: 409,
    meaning: 'The release was confirmed with another rate than the one proposed; nothing changed.',
  },
  held: {
    status: 409,
    meaning: 'A gateway step stopped before sending anything: its kind of outgoing money is held.',
  },
  // The payee directory (docs/payees.md).
  payee_archived: { status: 409, meaning: 'The payee is archived; it changes no more and pays nothing.' },
  payee_change_open: {
    status: 409,
    meaning: 'The payee has a proposed change waiting for a second person; decide it first.',
  },
  payee_change_not_proposed: { status: 409, meaning: 'The payee change was decided already.' },
  payee_change_stale: {
    status: 409,
    meaning: 'The payee changed after this proposal was made; propose again from the payee as it is.',
  },
  policy_not_proposed: {
    status: 409,
    meaning:
      'The approval policy version is not waiting for a decision (decided already, or past its 72 hours).',
  },
  // Payments.
  payment_exists: { status: 409, meaning: 'The payment id is used by another payment.' },
  payment_not_authorized: { status: 409, meaning: 'The payment is not waiting for capture or cancel.' },
  payment_not_refundable: { status: 409, meaning: 'The payment cannot be refunded in its status.' },
  refund_below_minimum: { status: 400, meaning: 'The refund is below the gateway’s minimum.' },
  refund_exceeds_remaining: { status: 409, meaning: 'The refund is more than what is left to refund.' },
  terminal_payment_settled: { status: 409, meaning: 'The terminal payment was settled already.' },
  settlement_refused: { status: 422, meaning: 'The gateway refused the terminal settlement.' },
  confirm_refused: { status: 502, meaning: 'The gateway refused the capture or cancel.' },
  unknown_order: { status: 400, meaning: 'The return page names an order payrun does not know.' },
  amount: { status: 400, meaning: 'The return page’s amount differs from the payment’s.' },
  // Remittances.
  quote_unavailable: { status: [503, 502], meaning: 'No exchange quote could be read.' },
  // Saved methods.
  binding_refused: { status: 502, meaning: 'The gateway refused to bind the wallet.' },
  delete_refused: { status: 502, meaning: 'The gateway refused to delete the saved method.' },
  token_payment_exists: { status: 409, meaning: 'The payment id is used by another saved-method payment.' },
  method_deleting: { status: 409, meaning: 'The saved method is being deleted; it is never used again.' },
  method_deleted: { status: 409, meaning: 'The saved method was deleted; it is never used again.' },
  method_revoked: { status: 409, meaning: 'The customer revoked the saved method; it is never used again.' },
  otp_invalid: { status: 400, meaning: 'The code is not 4 to 8 digits.' },
  otp_not_awaited: { status: 409, meaning: 'The payment is not waiting for a code.' },
  otp_wrong: { status: 422, meaning: 'The code is wrong; the customer may try again.' },
  otp_locked: { status: 423, meaning: 'Too many wrong codes: the method is locked for a while.' },
  otp_expired: { status: 410, meaning: 'The code expired; ask for a new one.' },
  otp_too_soon: { status: 429, meaning: 'A new code was asked for too soon.' },
  otp_sms_limit: { status: 429, meaning: 'The day’s limit of codes by SMS is reached.' },
  otp_failed: { status: 502, meaning: 'The gateway refused the code for another reason.' },
  // Subscriptions.
  subscription_exists: { status: 409, meaning: 'The subscription id is used by another subscription.' },
  subscription_finished: { status: 409, meaning: 'The subscription ended; nothing changes it.' },
  subscription_state: { status: 409, meaning: 'The subscription is not in a state that allows this.' },
  plan_exists: { status: 409, meaning: 'A plan with this code exists already.' },
  plan_archived: { status: 409, meaning: 'The plan is archived: it takes no new subscriptions.' },
  plan_price_change_running: {
    status: 409,
    meaning: 'Another price change of the plan is still being applied to its subscriptions.',
  },
  charge_above_authorized: {
    status: 500,
    meaning: 'A charge above the recurringAmount the customer authorized was refused before it was sent.',
  },
  price_change_not_authorized: {
    status: 500,
    meaning: 'A price change was to take over without the token of the customer’s new authorization.',
  },
  subscription_refused: { status: 422, meaning: 'The gateway refused the subscription or its change.' },
  gateway_refused: { status: 422, meaning: 'The gateway refused the request; its code is in the message.' },
  // Events and webhooks.
  webhooks_not_configured: { status: 503, meaning: 'Webhooks are off: no signing secret is set.' },
  endpoint_not_active: { status: 409, meaning: 'The webhook endpoint is not active.' },
  endpoint_not_disabled: { status: 409, meaning: 'The webhook endpoint is not disabled.' },
  event_type_not_subscribed: { status: 422, meaning: 'The endpoint does not take this event type.' },
  webhook_url_refused: { status: 422, meaning: 'The webhook URL is not one payrun sends to.' },
  webhook_refused: {
    status: 502,
    meaning: 'The merchant’s endpoint refused a delivery or did not answer; it is tried again.',
  },
  unknown_event: { status: 404, meaning: 'The event does not exist.' },
  // Audit and keys.
  own_key: { status: 409, meaning: 'A key cannot revoke itself.' },
  api_key_owned: { status: 409, meaning: 'The key already has an owner; make a new key for another.' },
  // People signing in through the identity provider (docs/identity.md).
  sign_in_failed: {
    status: [400, 401],
    meaning: 'The sign-in is unknown, too old, or the identity provider did not confirm it.',
  },
  person_removed: { status: 403, meaning: 'The person was offboarded from payrun and cannot sign in.' },
  identity_provider_unavailable: { status: 503, meaning: 'The identity provider cannot be reached.' },
  // Notifications from the gateway.
  notification_refused: {
    status: 400,
    meaning: 'The notification is not signed or not one payrun sent for.',
  },
  // Failures inside workers, shown in the Temporal UI; the API answers them as 502 or 500 when they reach it.
  gateway_rejected: {
    status: 502,
    meaning: 'The gateway answered a final result code the step did not expect.',
  },
  gateway_invalid_request: { status: 500, meaning: 'payrun’s request broke a rule of the operation table.' },
  gateway_signature_mismatch: { status: 502, meaning: 'The gateway’s answer is not signed with its key.' },
  gateway_request_refused: { status: 502, meaning: 'An HTTP 4xx without a result code.' },
  gateway_unusable_answer: { status: 502, meaning: 'The gateway’s answer is not of the expected shape.' },
  gateway_bad_quote: { status: 502, meaning: 'The gateway’s exchange quote cannot be used.' },
  subscription_without_token: { status: 500, meaning: 'A subscription to charge has no token on record.' },
  unknown_record: { status: 500, meaning: 'A workflow names a record the database does not hold.' },
  paid_elsewhere_in_family: {
    status: 500,
    meaning: 'A batch holds a payout id already paid or being paid by another run of its retry family.',
  },
} as const satisfies Record<string, { status: number | readonly number[]; meaning: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** The HTTP statuses a code may be answered with. */
export type StatusOf<C extends ErrorCode> = (typeof ERRORS)[C]['status'] extends readonly (infer S)[]
  ? S
  : (typeof ERRORS)[C]['status'];

/** The usual HTTP status of a code. */
export function statusOf(code: ErrorCode): number {
  const status: number | readonly number[] = ERRORS[code].status;
  return typeof status === 'number' ? status : status[0]!;
}

export const isErrorCode = (code: string | undefined): code is ErrorCode =>
  code !== undefined && Object.prototype.hasOwnProperty.call(ERRORS, code);

/**
 * Failure types raised by workers of earlier versions, read as today's code: an API deployed ahead of
 * the workers (or behind them), and a workflow replaying an old history, understand every refusal.
 */
const EARLIER_TYPES: Readonly<Record<string, ErrorCode>> = {
  BindingRefused: 'binding_refused',
  PaymentNotAuthorized: 'payment_not_authorized',
  SubscriptionRefused: 'subscription_refused',
  OtpInvalid: 'otp_invalid',
  OtpNotAwaited: 'otp_not_awaited',
  OtpWrong: 'otp_wrong',
  OtpLocked: 'otp_locked',
  OtpExpired: 'otp_expired',
  OtpTooSoon: 'otp_too_soon',
  OtpSmsLimit: 'otp_sms_limit',
  OtpFailed: 'otp_failed',
  WebhookUrlRefused: 'webhook_url_refused',
  WebhookRefused: 'webhook_refused',
  GatewayRejected: 'gateway_rejected',
  GatewayInvalidRequest: 'gateway_invalid_request',
  GatewaySignatureMismatch: 'gateway_signature_mismatch',
  GatewayRequestRefused: 'gateway_request_refused',
  GatewayUnusableAnswer: 'gateway_unusable_answer',
  OrderIdTaken: 'order_id_taken',
  UnknownEvent: 'unknown_event',
  DeleteRefused: 'delete_refused',
  GatewayBadQuote: 'gateway_bad_quote',
  SubscriptionWithoutToken: 'subscription_without_token',
  WebhooksNotConfigured: 'webhooks_not_configured',
  UnknownPayment: 'unknown_record',
  UnknownBinding: 'unknown_record',
  UnknownMethod: 'unknown_record',
  RemittanceMissing: 'unknown_record',
};

/** The names a code's failures carried before, for retry policies that must stop on either. */
export function earlierTypesOf(code: ErrorCode): string[] {
  return Object.entries(EARLIER_TYPES).flatMap(([earlier, now]) => (now === code ? [earlier] : []));
}

/** A failure's type as today's code, whichever worker raised it; undefined when it carries none. */
export function failureTypeOf(failure: { type?: string | null } | undefined): string | undefined {
  const type = failure?.type ?? undefined;
  return type === undefined ? undefined : (EARLIER_TYPES[type] ?? type);
}
