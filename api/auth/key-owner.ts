/**
 * Who answers for an API key, as one string: a person's identity `<issuer>#<sub>` (the provider's issuer
 * URL and subject, exactly as the audit log records people) or `service:<name>` for a machine. A person's
 * keys end with them (offboarding, or removal at the provider); a service's keys end when revoked.
 */
import { z } from 'zod';

const SERVICE = /^service:[a-z0-9][a-z0-9._-]{0,99}$/;
const PERSON = /^https?:\/\/[A-Za-z0-9.-]+(:[0-9]{1,5})?(\/[^\s#]*)?#[^\s#]{1,255}$/;
/** One pattern for both, so the OpenAPI document states the rule the API applies. */
const OWNER = new RegExp(`^(?:${SERVICE.source.slice(1, -1)}|${PERSON.source.slice(1, -1)})$`);

export type KeyOwner = { kind: 'person'; id: string } | { kind: 'service'; id: string };

/** The stored owner of an owner string; undefined when the string is neither form. */
export function parseKeyOwner(text: string): KeyOwner | undefined {
  if (SERVICE.test(text)) return { kind: 'service', id: text.slice('service:'.length) };
  return PERSON.test(text) ? { kind: 'person', id: text } : undefined;
}

/** The owner string of a stored owner; null for keys made before owners existed. */
export function keyOwnerText(kind: string | null, id: string | null): string | null {
  if (!kind || !id) return null;
  return kind === 'service' ? `service:${id}` : id;
}

export const keyOwnerField = z
  .string()
  .max(600)
  .regex(
    OWNER,
    "must be a person's identity <issuer>#<sub> (e.g. https://id.example.com#an.admin) or service:<name> (lower-case letters, digits, . _ -)",
  )
  .meta({
    description: "A person's identity `<issuer>#<sub>`, or `service:<name>`",
    example: 'service:payroll-export',
  });
