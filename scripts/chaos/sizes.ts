/**
 * How much `npm run chaos` drives and how hard it hits. `full` is the figure set (5 runs of
 * 1,000 rows, 300 subscriptions, …, a worker killed every few seconds); `small` is the same shape
 * scaled down to run inside `npm test` in a few minutes, with one fault of each kind.
 */
export interface ChaosSize {
  name: 'full' | 'small';
  workers: number;
  workload: {
    payoutRuns: number;
    rowsPerRun: number;
    subscriptions: number;
    savedMethodPayments: number;
    disbursements: number;
    remittances: number;
    paymentsWithRefunds: number;
  };
  faults: {
    /** Faults are injected from the start of the workload for this long, then stopped. */
    windowSeconds: number;
    /** A random worker is SIGKILLed every this many seconds (a seeded pick in the range); 0: once. */
    workerKillEverySeconds: [number, number];
    apiKills: number;
    temporalKills: number;
    postgresStops: number;
    /** Share of gateway calls answered with a fault (5xx, hang, lost response, resultCode 10). */
    gatewayCallShare: number;
    /**
     * full: share of notifications disturbed (copies ×5, reordered, delayed, lost, forged). small: the
     * chance each notification is the one a disturbance (each happens once) picks.
     */
    notificationShare: number;
  };
  /** After the fault window, how long everything may take to reach a final (or documented) state. */
  settleSeconds: number;
}

export const FULL: ChaosSize = {
  name: 'full',
  workers: 3,
  workload: {
    payoutRuns: 5,
    rowsPerRun: 1000,
    subscriptions: 300,
    savedMethodPayments: 100,
    disbursements: 50,
    remittances: 20,
    paymentsWithRefunds: 50,
  },
  faults: {
    windowSeconds: 180,
    workerKillEverySeconds: [5, 12],
    apiKills: 2,
    temporalKills: 1,
    postgresStops: 1,
    gatewayCallShare: 0.1,
    notificationShare: 0.1,
  },
  settleSeconds: 900,
};

export const SMALL: ChaosSize = {
  name: 'small',
  workers: 3,
  workload: {
    payoutRuns: 1,
    rowsPerRun: 200,
    subscriptions: 20,
    savedMethodPayments: 10,
    disbursements: 5,
    remittances: 2,
    paymentsWithRefunds: 5,
  },
  faults: {
    windowSeconds: 45,
    workerKillEverySeconds: [0, 0],
    apiKills: 1,
    temporalKills: 1,
    postgresStops: 1,
    gatewayCallShare: 0.1,
    notificationShare: 0.3,
  },
  settleSeconds: 150,
};

export const SIZES = { full: FULL, small: SMALL } as const;
