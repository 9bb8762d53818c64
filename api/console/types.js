// @ts-check
/**
 * The shapes the console's modules share, for the type checker only (`npm run typecheck` checks the
 * console with `api/console/tsconfig.json`): nothing here runs, and no page imports this file at run
 * time — JSDoc refers to it with `import('./types.js')`, which the browser never sees.
 *
 * Records from the API are typed loosely (`ApiRecord`): the API validates and documents its answers
 * (`/openapi.json`), and the console only shows them.
 */

/** A record or answer of the API, as JSON. */
/** @typedef {Record<string, any>} ApiRecord */

/**
 * What an element may hold: text, elements, and lists of them; null, undefined and false are left out.
 * @typedef {Node | string | number | boolean | null | undefined | ChildList} Child
 */
/** @typedef {import('./types.js').Child[]} ChildList */
/**
 * What each role may do in the console (admin may do everything), mirroring the API's route roles.
 * @typedef {'readRuns' | 'upload' | 'decide' | 'subscriptions' | 'reactivate' | 'savedMethodPayments'
 *   | 'remittances' | 'sendRemittance' | 'payments' | 'confirmPayments' | 'audit' | 'webhooks'
 *   | 'savedMethods' | 'approve' | 'holds' | 'mail' | 'plans'} Duty
 */

/** [smallest, largest] in VND. @typedef {[number, number]} AmountRange */

/**
 * Where the console links workflows, and the gateway's amount ranges (`GET /v1/console/config`); null
 * ranges until it answered.
 * @typedef {{ temporalUiUrl: string | null, namespace: string,
 *   disbursementAmountRanges: { wallet: AmountRange, bank: AmountRange } | null }} ConsoleConfig
 */

/**
 * The signed-in state every page gets.
 * @typedef {object} Ctx
 * @property {{ name: string, roles: string[] } | null} me
 * @property {ConsoleConfig} config
 * @property {(duty: Duty) => boolean} can
 * @property {(hash: string) => void} navigate
 */

/**
 * A page: fills `main`, and may answer a function that stops what it started (timers, polling).
 * @typedef {(() => void) | void} Leave
 */

/**
 * One column of a list page; the first column is the record's id, linked to its page.
 * @typedef {object} Column
 * @property {() => string} label
 * @property {(row: ApiRecord, ctx: Ctx) => Child} value
 * @property {boolean} [numeric]
 */

/**
 * What a detail page's actions get: how to reload the page, where to say how an action went, and
 * the record's id.
 * @typedef {{ refresh: () => Promise<void>, feedback: HTMLElement, id: string }} ActionContext
 */

/**
 * A timeline entry of a detail page.
 * @typedef {{ at: string | null | undefined, what: string, who?: string | null }} TimelineEvent
 */

/**
 * A capability's records, described once: the list page and the detail page read it.
 * @typedef {object} Resource
 * @property {string} name The address (#/<name>) and the class of its list table.
 * @property {() => string} title
 * @property {() => string} [singular] Present when the records have a detail page of the shared kind.
 * @property {() => string} intro
 * @property {string} endpoint The API list, and `<endpoint>/<id>` a record.
 * @property {string} key The list answer's field holding the rows.
 * @property {string} [auditTarget] The audit log's target type of these records.
 * @property {Duty} [duty]
 * @property {() => string} [searchLabel]
 * @property {{ duty: Duty, label: () => string }} [create] A create form at #/<name>/new.
 * @property {string[]} statuses
 * @property {(row: ApiRecord) => string} idOf
 * @property {(row: ApiRecord) => string} [statusOf]
 * @property {Column[]} columns
 * @property {(ctx: Ctx) => Child} [listExtras]
 * @property {(view: ApiRecord, id: string) => Promise<ApiRecord>} [load] Adds what the record's own answer lacks.
 * @property {(view: ApiRecord) => Array<[string, Child]>} [facts]
 * @property {(view: ApiRecord) => string[]} [orderIds] The gateway orders whose notifications belong on the timeline.
 * @property {(view: ApiRecord) => TimelineEvent[]} [events]
 * @property {(view: ApiRecord, ctx: Ctx) => Child} [sections]
 * @property {(view: ApiRecord) => string} [actionKey] What, besides the status, changes the actions shown.
 * @property {(view: ApiRecord, ctx: Ctx, action: ActionContext) => Child[]} [actions]
 */

export {};
