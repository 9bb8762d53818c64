/**
 * The vocabulary of the operation table: field descriptors, cross-field rules, operation and
 * notification entries. Everything else in `gateway/` (validation, signing, the client, the
 * notification verifier, the sandbox later) interprets these descriptors; nothing restates them.
 */

interface FieldBase {
  readonly required?: boolean;
  /** `null` is accepted as "not given" (e.g. disbursement `personalId` when the ID need not be checked). */
  readonly nullable?: boolean;
  readonly description?: string;
}

export interface StringField extends FieldBase {
  readonly kind: 'string';
  readonly maxLength?: number;
  readonly minLength?: number;
  readonly pattern?: RegExp;
  readonly enum?: readonly string[];
  /** The client fills this value when the caller leaves it out (e.g. `requestType` of a create variant). */
  readonly constant?: string;
  readonly format?: 'base64-json' | 'date' | 'dmy-date' | 'gmt7-datetime';
}

export interface LongField extends FieldBase {
  readonly kind: 'long';
  readonly min?: number;
  readonly max?: number;
}

/** A JSON number with a fractional part (foreign-currency amounts). */
export interface DecimalField extends FieldBase {
  readonly kind: 'decimal';
  readonly exclusiveMin?: number;
  readonly maxDecimals?: number;
}

export interface BooleanField extends FieldBase {
  readonly kind: 'boolean';
}

export interface ObjectField<M extends FieldMap = FieldMap> extends FieldBase {
  readonly kind: 'object';
  readonly fields: M;
  /** Accept keys that are not declared (shapes the spec only sketches). */
  readonly open?: boolean;
}

export interface ListField<E extends FieldSpec = FieldSpec> extends FieldBase {
  readonly kind: 'list';
  readonly of: E;
  readonly maxItems?: number;
  readonly minItems?: number;
}

/**
 * A field sent RSA-encrypted with the gateway's public key. Callers (and validation) see the
 * plaintext `payload`; the wire and the signature carry the Base64 ciphertext.
 */
export interface EncryptedField<
  P extends ObjectField | StringField = ObjectField | StringField,
> extends FieldBase {
  readonly kind: 'encrypted';
  readonly payload: P;
}

export type FieldSpec =
  StringField | LongField | DecimalField | BooleanField | ObjectField | ListField | EncryptedField;

export type FieldMap = { readonly [name: string]: FieldSpec };

/** One broken rule, named so that an operator can fix the input without reading code. */
export interface Violation {
  /** Path of the offending field: `amount`, `userInfo.email`, `disbursements[3].amount`. */
  readonly field: string;
  /** Short rule name: `required`, `maxLength 50`, `range 1000..50000000`, `sum of items`. */
  readonly rule: string;
  readonly message: string;
}

/**
 * Facts the request alone does not carry but some limits depend on. Callers that know them pass
 * them; when absent, the rule falls back to the widest range the spec allows for the operation.
 */
export interface ValidationContext {
  /** Flow of the saved token being charged (tokenization/pay limits differ per flow). */
  readonly tokenKind?: 'card' | 'domestic' | 'wallet';
  /** `recurringAmount` fixed at subscription creation (subscription/pay upper bound). */
  readonly recurringAmount?: number;
  /** Method of the purchase being refunded (refund limits differ). */
  readonly refundOf?: 'domestic-card' | 'tokenization' | 'other';
}

export type Fields = Readonly<Record<string, unknown>>;

/** A rule across fields that the per-field descriptors cannot express. */
export interface Rule {
  readonly name: string;
  check(fields: Fields, context: ValidationContext): readonly Violation[];
}

/** What a merchant does next for a result code (see result-codes.ts). */
export type ResultAction =
  | 'success'
  | 'wait-for-ipn'
  | 'retry-later'
  | 'redirect-customer'
  | 'ask-for-otp'
  | 'batch-created'
  | 'resolve-by-query'
  | 'final-failure';

export interface ResultOverride {
  readonly final?: boolean;
  readonly action?: ResultAction;
  readonly note?: string;
}

export type NotificationKind =
  | 'payment.resultA'
  | 'payment.resultB'
  | 'payment.cardAck'
  | 'disbursement.result'
  | 'remittance.result'
  | 'batch.created'
  | 'batch.paid'
  | 'token.unbind';

/** How the merchant answers a notification. */
export type AcknowledgementFormat = 'no-content' | 'signed-json';

export interface OperationSpec<R extends FieldMap = FieldMap, S extends FieldMap = FieldMap> {
  /** Where in the three spec documents the operation is described. */
  readonly document: 1 | 2 | 3;
  readonly summary: string;
  readonly path: `/v2/gateway/${string}`;
  readonly request: R;
  /** Signed request fields, a to z, `accessKey` included. */
  readonly signed: readonly string[];
  readonly rules?: readonly Rule[];
  readonly timeoutMs: number;
  readonly response: {
    readonly fields: S;
    /** Present only where the spec gives the response's signed list. */
    readonly signed?: readonly string[];
  };
  /**
   * What result code 0 means for this operation. A create answers 0 when the order exists, not when
   * it is paid, so for those the next step is the customer (or the IPN), not "done".
   */
  readonly successAction?: ResultAction;
  /** Per-operation deviations from the general result-code table (document 3's finality notes). */
  readonly results?: Readonly<Record<number, ResultOverride>>;
  /** The notification the gateway later sends about this operation, if any. */
  readonly notification?: NotificationKind;
  /** How our IPN receiver answers that notification; `no-content` when not stated. */
  readonly acknowledgement?: AcknowledgementFormat;
  /** Spec gaps filled by us; each is listed in gateway/README.md under "Assumptions". */
  readonly assumptions?: readonly string[];
}

export interface NotificationSpec<M extends FieldMap = FieldMap> {
  readonly document: 1 | 2 | 3;
  readonly summary: string;
  /** `ipn`: gateway → merchant POST; `ack`: merchant's answer to an IPN; `unbind`: token removal. */
  readonly channel: 'ipn' | 'ack' | 'unbind';
  readonly fields: M;
  readonly signed: readonly string[];
  /** `orderType` value the gateway writes, where there is one. */
  readonly orderType?: string;
  /** How the merchant answers (for `ipn` and `unbind` channels). */
  readonly acknowledgement?: AcknowledgementFormat;
  readonly assumptions?: readonly string[];
}

// ---- TypeScript types derived from descriptors -------------------------------------------------

type RequiredKeys<M extends FieldMap> = {
  [K in keyof M]: M[K] extends { readonly required: true } ? K : never;
}[keyof M];
type OptionalKeys<M extends FieldMap> = Exclude<keyof M, RequiredKeys<M>>;

type Nullable<F, T> = F extends { readonly nullable: true } ? T | null : T;

/** The plaintext value a descriptor accepts. */
export type ValueOf<F> = Nullable<
  F,
  F extends StringField
    ? string
    : F extends LongField | DecimalField
      ? number
      : F extends BooleanField
        ? boolean
        : F extends ObjectField<infer M>
          ? ShapeOf<M>
          : F extends ListField<infer E>
            ? ValueOf<E>[]
            : F extends EncryptedField<infer P>
              ? ValueOf<P>
              : unknown
>;

export type ShapeOf<M extends FieldMap> = { [K in RequiredKeys<M>]: ValueOf<M[K]> } & {
  [K in OptionalKeys<M>]?: ValueOf<M[K]>;
};
