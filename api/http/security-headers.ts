/**
 * Headers every answer carries unless its route sets its own (the console sets a stricter policy that
 * allows its own scripts). The default policy lets a page use only its inline styles: no scripts, no
 * framing, no forms, no loads from anywhere. JSON answers carry it too, harmlessly. API answers hold
 * personal data (names, wallets, tokens' last digits), so nothing is stored by browsers or proxies
 * unless a route says otherwise.
 */
import type { RequestHandler } from 'express';

const DEFAULT_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

export function securityHeaders(): RequestHandler {
  return (_req, res, next) => {
    res.set(DEFAULT_HEADERS);
    next();
  };
}
