/**
 * Failure types are PascalCase everywhere, like the SDK's own and the activities' (`GatewayRejected`,
 * `UnknownPayment`); the API's error codes are snake_case and each API module maps the types it
 * answers to its codes. Workers from before this rule failed some updates with the API code itself as
 * the type: `failureTypeOf` reads those as today's type, so an API deployed ahead of the workers (or
 * behind them) still understands every refusal.
 */
const RENAMED: Readonly<Record<string, string>> = {
  binding_refused: 'BindingRefused',
  payment_not_authorized: 'PaymentNotAuthorized',
  subscription_refused: 'SubscriptionRefused',
  otp_invalid: 'OtpInvalid',
  otp_not_awaited: 'OtpNotAwaited',
  otp_wrong: 'OtpWrong',
  otp_locked: 'OtpLocked',
  otp_expired: 'OtpExpired',
  otp_too_soon: 'OtpTooSoon',
  otp_sms_limit: 'OtpSmsLimit',
  otp_failed: 'OtpFailed',
};

/** The failure's type by today's name, whichever worker raised it; undefined when it carries none. */
export function failureTypeOf(failure: { type?: string | null } | undefined): string | undefined {
  const type = failure?.type ?? undefined;
  return type === undefined ? undefined : (RENAMED[type] ?? type);
}
