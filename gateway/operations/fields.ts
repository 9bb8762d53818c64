import type {
  BooleanField,
  DecimalField,
  EncryptedField,
  FieldMap,
  FieldSpec,
  ListField,
  LongField,
  ObjectField,
  StringField,
} from './types';

/** Small constructors so that table entries read like the spec's field tables. */

type Extra<F> = Omit<F, 'kind'>;

export const text = (maxLength?: number, extra: Extra<StringField> = {}): StringField => ({
  kind: 'string',
  ...(maxLength === undefined ? {} : { maxLength }),
  ...extra,
});

export const oneOf = (values: readonly string[], extra: Extra<StringField> = {}): StringField => ({
  kind: 'string',
  enum: values,
  ...extra,
});

/** A string field whose only value is fixed by the operation; the client fills it in. */
export const constant = (value: string): StringField => ({ kind: 'string', enum: [value], constant: value });

export const long = (min?: number, max?: number, extra: Extra<LongField> = {}): LongField => ({
  kind: 'long',
  ...(min === undefined ? {} : { min }),
  ...(max === undefined ? {} : { max }),
  ...extra,
});

export const decimal = (extra: Extra<DecimalField> = {}): DecimalField => ({ kind: 'decimal', ...extra });

export const bool = (): BooleanField => ({ kind: 'boolean' });

export const object = <M extends FieldMap>(fields: M, extra: Omit<Extra<ObjectField>, 'fields'> = {}) =>
  ({ kind: 'object', fields, ...extra }) as ObjectField<M>;

export const list = <E extends FieldSpec>(of: E, maxItems?: number) =>
  ({ kind: 'list', of, ...(maxItems === undefined ? {} : { maxItems }) }) as ListField<E>;

export const encrypted = <P extends ObjectField | StringField>(payload: P) =>
  ({ kind: 'encrypted', payload }) as EncryptedField<P>;

export const required = <F extends FieldSpec>(field: F) =>
  ({ ...field, required: true }) as F & { required: true };

export const nullable = <F extends FieldSpec>(field: F) =>
  ({ ...field, nullable: true }) as F & { nullable: true };
