import { z } from 'zod';
import { decodeCursor, encodeCursor, eventView, findEvent, readFeed } from '../../db/events/events';
import type { Db } from '../../db/shared/knex';
import { EVENT_TYPES, isEventType } from '../../platform/event-catalogue';
import { defineRoute, type AnyRoute } from '../http/routes';
import { beyondSchema, notFound } from '../http/errors';

const READERS = ['viewer'] as const;

/** `type=a,b` (or `type=a&type=b`): each a type of the catalogue. */
const typeList = z
  .union([z.string(), z.array(z.string())])
  .transform((value) => (Array.isArray(value) ? value : [value]).flatMap((text) => text.split(',')))
  .pipe(
    z
      .array(
        z.string().refine(isEventType, {
          error: `an event type of the catalogue (${EVENT_TYPES.length} types, see docs/events.md)`,
        }),
      )
      .min(1)
      .max(EVENT_TYPES.length),
  )
  // For the OpenAPI document: one type of the catalogue (the API also takes `a,b` and repeats).
  .meta({ enum: [...EVENT_TYPES] });

const cursor = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,60}$/, 'a nextCursor this API answered with: 1 to 60 of A-Z a-z 0-9 _ -')
  .transform((text, ctx) => {
    const decoded = decodeCursor(text);
    if (!decoded) {
      ctx.addIssue({
        code: 'custom',
        message: 'a nextCursor this API answered with',
        params: beyondSchema('cursor'),
      });
      return z.NEVER;
    }
    return decoded;
  });

export function eventRoutes(deps: { db: Db }): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/events',
      summary:
        'Events in feed order after a cursor (none: from the first). An event appears only once no transaction ' +
        'that could commit before it is still running, so following nextCursor never skips one.',
      tag: 'events',
      access: { roles: READERS },
      query: z.object({
        after: cursor.optional(),
        type: typeList.optional(),
        limit: z.coerce.number().int().min(1).max(500).default(100),
      }),
      handler: async ({ query }) => {
        const { rows, cursor: next } = await readFeed(deps.db, {
          after: query.after,
          types: query.type,
          limit: query.limit,
        });
        return {
          body: {
            events: rows.map(eventView),
            // Unchanged when nothing new settled: ask again with the same cursor later.
            nextCursor: next ? encodeCursor(next) : null,
            hasMore: rows.length === query.limit,
          },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/events/:eventId',
      summary: 'One event by id.',
      tag: 'events',
      access: { roles: READERS },
      params: z.object({
        eventId: z.string().regex(/^evt_[0-9a-f]{32}$/, 'an event id, evt_ and 32 hex digits'),
      }),
      handler: async ({ params }) => {
        const row = await findEvent(deps.db, params.eventId);
        if (!row) throw notFound(`Event ${params.eventId}`);
        return { body: eventView(row) };
      },
    }),
  ];
}
