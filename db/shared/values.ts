/** Column values as the API and events show them. */
export const isoOrNull = (value: Date | null) => (value ? value.toISOString() : null);
export const numberOrNull = (value: string | null) => (value === null ? null : Number(value));
