/**
 * The console's session cookie: HttpOnly (no script reads it), SameSite=Lax (no other site's form or
 * script sends it with a POST), Secure whenever the request came over https, scoped to the whole API.
 * Every mutating request made with it must also carry the session's CSRF token in X-CSRF-Token (a
 * synchroniser token kept with the session), which a page of another origin cannot read.
 */
import type { Request, Response } from 'express';

export const SESSION_COOKIE = 'payrun_session';
export const CSRF_HEADER = 'x-csrf-token';

export function sessionIdOf(req: Request): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === SESSION_COOKIE) {
      const value = rest.join('=');
      return /^[A-Za-z0-9_-]{43}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

export function setSessionCookie(req: Request, res: Response, sessionId: string, maxSeconds: number): void {
  res.cookie(SESSION_COOKIE, sessionId, {
    httpOnly: true,
    sameSite: 'lax',
    secure: req.secure,
    path: '/',
    maxAge: maxSeconds * 1000,
  });
}

export function clearSessionCookie(req: Request, res: Response): void {
  res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure: req.secure, path: '/' });
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const needsCsrfToken = (method: string): boolean => !SAFE_METHODS.has(method.toUpperCase());
