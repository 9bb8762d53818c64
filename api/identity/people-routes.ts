import { z } from 'zod';
import type { Db } from '../../db/shared/knex';
import { NOT_BLANK } from '../http/openapi';
import { refuseMissingBody } from '../http/missing-body';
import { defineRoute, type AnyRoute } from '../http/routes';
import { offboardPerson } from './offboarding';

export function peopleRoutes(deps: { db: Db; issuer?: string }): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/people/:subject/offboard',
      summary:
        'Offboard a person (their provider subject): their console sessions end, every API key they own is revoked, and they cannot sign in again, even while the provider still lists them.',
      tag: 'audit',
      access: { roles: ['admin'] },
      audit: { action: 'person.offboard', target: 'person' },
      params: z.object({ subject: z.string().min(1).max(255) }),
      body: z.object({ reason: z.string().trim().min(1).max(500).meta(NOT_BLANK) }),
      responseStatus: 200,
      handler: async ({ params, principal, audit, req }) => {
        refuseMissingBody(req, 'a JSON object with a reason');
        const done = await offboardPerson(deps.db, {
          subject: params.subject,
          issuer: deps.issuer,
          removedBy: principal.keyId,
        });
        audit.note({ details: { sessionsEnded: done.sessionsEnded, keysRevoked: done.keysRevoked } });
        return { body: done };
      },
    }),
  ];
}
