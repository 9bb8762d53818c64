import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * One registry per process. In `npm run dev` the API and the worker share a process and so this
 * registry; standalone workers serve it on their own port (workers/main.ts).
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry, prefix: 'payrun_' });

export const httpRequests = new Counter({
  name: 'payrun_http_requests_total',
  help: 'API requests by route template and status',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [metricsRegistry],
});

export const httpRequestDuration = new Histogram({
  name: 'payrun_http_request_duration_seconds',
  help: 'API request latency by route template',
  labelNames: ['method', 'route'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [metricsRegistry],
});

export const ipnsReceived = new Counter({
  name: 'payrun_ipn_total',
  help: 'Gateway notifications received, by kind and verdict (accepted, duplicate, rejected reason, rate_limited)',
  labelNames: ['kind', 'verdict'] as const,
  registers: [metricsRegistry],
});

export const ipnsRelayed = new Counter({
  name: 'payrun_ipn_relayed_total',
  help:
    'Stored notifications the relay took from the inbox, by kind and outcome (signalled; workflow_gone: ' +
    'finished or its record final, counted as delivered; failed: tried again after the relay interval; unlocated: after the lease; ' +
    'waiting: no workflow takes it yet, a disbursement the desk holds, tried again after the interval)',
  labelNames: ['kind', 'outcome'] as const,
  registers: [metricsRegistry],
});

export const ipnsDisagreeing = new Counter({
  name: 'payrun_ipn_disagreeing_total',
  help:
    "Notifications whose result contradicts the order's final record (paid against not paid), by kind: " +
    'the record is kept and a warning logged; each needs an operator',
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
});

export const oldestUnsignalledIpn = new Gauge({
  name: 'payrun_ipn_oldest_unsignalled_seconds',
  help: 'Age of the oldest stored notification not signalled yet, as of the relay’s last sweep (0: none)',
  registers: [metricsRegistry],
});

export const ipnRelayGivingWay = new Gauge({
  name: 'payrun_ipn_relay_giving_way',
  help:
    'Whether this process’s relay is giving way to a burst of notifications (1: it signals only those older ' +
    'than IPN_RELAY_YIELD_MAX_SECONDS), as of its last check',
  registers: [metricsRegistry],
});

export const gatewayCalls = new Counter({
  name: 'payrun_gateway_calls_total',
  help: 'Gateway calls by operation and result code (or transport failure)',
  labelNames: ['operation', 'result_code'] as const,
  registers: [metricsRegistry],
});

export const gatewayCallDuration = new Histogram({
  name: 'payrun_gateway_call_duration_seconds',
  help: 'Gateway call latency by operation',
  labelNames: ['operation'] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [metricsRegistry],
});

export const identityRechecks = new Counter({
  name: 'payrun_identity_rechecks_total',
  help:
    'People confirmed again at the identity provider (a token refresh), by trigger (session, sweep) and outcome ' +
    '(confirmed; removed: invalid_grant, offboarded; unavailable: network error or 5xx, nothing changed; ' +
    'unchecked: no refresh token kept for the person)',
  labelNames: ['trigger', 'outcome'] as const,
  registers: [metricsRegistry],
});
