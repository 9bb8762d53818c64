import type { KeyObject } from 'node:crypto';
import type { SigningKeys } from '../gateway';
import { createBalances, type Balances } from './balances';
import { createCustomerDesk, type CustomerDesk } from './customer';
import { createFaultLayer, type FaultLayer } from './faults';
import { createIdempotency, type Idempotency } from './idempotency';
import { createIpnDispatcher, type IpnDispatcher } from './ipn';
import { createLedger, type Ledger } from './ledger';
import { createOtpDesk, type OtpDesk } from './otp';
import type { Currency, MerchantCredentials, SandboxLogger, SandboxTiming } from './options';
import { createPendingSettlements, type PendingSettlements } from './pending';
import { createRandom, createTransIdSource, type Random } from './random';
import { seededRates, type ExchangeRates } from './rates';
import { createScheduler, type Scheduler } from './scheduler';
import { createState, type SandboxState } from './state';

/** Resolved configuration: what stays the same across reset(). */
export interface SandboxConfig {
  merchant: MerchantCredentials;
  keys: SigningKeys;
  privateKey: KeyObject;
  seed: number;
  timing: SandboxTiming;
  initialBalances: Readonly<Record<Currency, number>>;
  logger: SandboxLogger;
  now: () => number;
  autoApprove: boolean;
  unbindUrl: string | undefined;
  /**
   * Base URL of the hosted customer pages (payUrl). Known only once the server listens, so the server
   * fills it in before the first request arrives.
   */
  publicUrl: string;
}

/** Settings the admin API may change at run time; reset() restores them from the options. */
export interface SandboxSettings {
  autoApprove: boolean;
  unbindUrl: string | undefined;
  /**
   * Wallet holders' registered names, by wallet id (admin `registerWalletHolder`). A wallet check naming
   * another name is refused 4003 (gateway/README assumption 32); a wallet with none registered takes any.
   */
  walletHolders: Map<string, string>;
}

/**
 * Everything a handler may use. One world lives from start (or reset) to close (or the next reset),
 * so a reset is "stop the old world, build a new one" and nothing of the old one can leak.
 */
export interface SandboxWorld {
  readonly config: SandboxConfig;
  readonly state: SandboxState;
  readonly balances: Balances;
  readonly ledger: Ledger;
  readonly ipn: IpnDispatcher;
  readonly faults: FaultLayer;
  readonly idempotency: Idempotency;
  readonly scheduler: Scheduler;
  readonly pending: PendingSettlements;
  readonly random: Random;
  readonly rates: ExchangeRates;
  readonly settings: SandboxSettings;
  /** Orders waiting for the simulated customer (hosted page, admin approve/decline). */
  readonly customer: CustomerDesk;
  readonly otp: OtpDesk;
  nextTransId(): number;
  now(): number;
  stop(): void;
}

export function createWorld(config: SandboxConfig): SandboxWorld {
  const now = config.now;
  const scheduler = createScheduler((error) =>
    config.logger.warn({ error: String(error) }, 'sandbox background task failed'),
  );
  const random = createRandom(config.seed);
  const rates = seededRates(random);
  const faults = createFaultLayer();
  const ipn = createIpnDispatcher({
    keys: config.keys,
    timing: config.timing,
    faults,
    scheduler,
    logger: config.logger,
    now,
  });
  const settings: SandboxSettings = {
    autoApprove: config.autoApprove,
    unbindUrl: config.unbindUrl,
    walletHolders: new Map(),
  };
  return {
    config,
    settings,
    customer: createCustomerDesk({ scheduler, timing: config.timing, settings, now }),
    otp: createOtpDesk(now),
    state: createState(),
    balances: createBalances(config.initialBalances),
    ledger: createLedger(now),
    ipn,
    faults,
    idempotency: createIdempotency(),
    scheduler,
    pending: createPendingSettlements(scheduler),
    random,
    rates,
    nextTransId: createTransIdSource(random),
    now,
    stop() {
      scheduler.stop();
      ipn.stop();
    },
  };
}
