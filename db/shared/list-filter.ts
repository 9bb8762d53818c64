/**
 * The filters every list of the API shares: status, a date range of days in Vietnam's time (GMT+7,
 * the merchants' own), a search by id, and pages of `limit` from `offset`, newest first.
 */
import type { Knex } from 'knex';

export interface ListFilter {
  status?: string;
  /** First day included, YYYY-MM-DD in GMT+7. */
  from?: string;
  /** Last day included, YYYY-MM-DD in GMT+7. */
  to?: string;
  /** Part of an id (any of the list's id columns), case-insensitive. */
  q?: string;
  limit: number;
  offset: number;
}

export interface ListColumns {
  created: string;
  status?: string;
  ids: readonly string[];
  /** A unique column that orders rows created in the same instant. */
  tiebreak: string;
}

const dayStart = (day: string) => `${day}T00:00:00+07:00`;
/** The instant the day after `day` starts; after 9999-12-31 that is 10000-01-01, which no YYYY-MM-DD spells. */
const nextDayStart = (day: string) => new Date(Date.parse(dayStart(day)) + 24 * 60 * 60 * 1000);

/** `%` and `_` typed in a search mean themselves. */
const likeEscaped = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

/** Applies the filter and one extra row past the page, which tells whether another page follows. */
export function applyListFilter<Q extends Knex.QueryBuilder>(
  query: Q,
  filter: ListFilter,
  columns: ListColumns,
): Q {
  if (filter.status && columns.status) query.where(columns.status, filter.status);
  if (filter.from) query.where(columns.created, '>=', dayStart(filter.from));
  if (filter.to) query.where(columns.created, '<', nextDayStart(filter.to));
  if (filter.q) {
    const pattern = `%${likeEscaped(filter.q)}%`;
    query.where((where) => {
      for (const column of columns.ids) where.orWhereILike(column, pattern);
    });
  }
  query.orderBy([
    { column: columns.created, order: 'desc' },
    { column: columns.tiebreak, order: 'desc' },
  ]);
  query.limit(filter.limit + 1).offset(filter.offset);
  return query;
}

/** The page's rows and where the next page starts (null on the last page). */
export function pageOf<T>(rows: T[], filter: ListFilter): { rows: T[]; nextOffset: number | null } {
  const more = rows.length > filter.limit;
  return {
    rows: more ? rows.slice(0, filter.limit) : rows,
    nextOffset: more ? filter.offset + filter.limit : null,
  };
}
