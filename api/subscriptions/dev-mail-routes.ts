/**
 * The dev mail catcher's inbox (npm run dev / npm run cluster): every notice as the customer would get it.
 * Mounted only when the process runs a catcher, so a deployment with a real mail server has no such route.
 */
import { z } from 'zod';
import type { CaughtMail } from '../../platform/mail-catcher';
import { defineRoute, type AnyRoute } from '../http/routes';

export interface DevMailbox {
  messages(): CaughtMail[];
}

export function devMailRoutes(mailbox: DevMailbox): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/dev/mail',
      summary:
        'Development only (admin): the messages the local mail catcher received, newest first (from, to, subject, language, notice kind and key, the text). Not mounted when payrun sends through a real mail server.',
      tag: 'subscriptions',
      access: { roles: ['admin'] },
      query: z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) }),
      handler: async ({ query }) => ({ body: { messages: mailbox.messages().slice(0, query.limit) } }),
    }),
  ];
}
