/**
 * The hold switch (issue 33): two admins together hold outgoing money of one kind; a workflow about to
 * move money of that kind stops at its next gateway step, before anything is sent, and waits until the
 * hold is released, at a chosen rate, with the API's proof. Pure code: workflows, activities, db/ and the
 * API share it.
 */
import { defineSignal } from '@temporalio/workflow';

export const HOLD_KINDS = [
  'bank_disbursement',
  'wallet_disbursement',
  'batch_payment',
  'charge',
  'refund',
  'remittance',
] as const;
export type HoldKind = (typeof HOLD_KINDS)[number];

/** What GET /v1/holds shows of one kind. `off`: nothing held and nothing proposed. */
export type HoldStatus = 'off' | 'proposed' | 'held' | 'release_proposed' | 'releasing';

/**
 * An episode's own life: proposed → held → release_proposed → releasing → released, or withdrawn while
 * proposed. A release proposal withdrawn goes back to held. `released` and `withdrawn` are the ends.
 */
export type HoldEpisodeStatus = Exclude<HoldStatus, 'off'> | 'released' | 'withdrawn';

/** Statuses in which a gateway step of the kind is stopped before it sends anything. */
export const STOPPING_STATUSES: readonly HoldEpisodeStatus[] = ['held', 'release_proposed'];

/** The failure type an activity throws when its kind is held; details: `[HeldDetails]`. */
export const HELD = 'held';
export interface HeldDetails {
  holdId: string;
  kind: HoldKind;
  /** The item's amount in VND, when the activity knows it better than its workflow (a refund's record). */
  amountVnd?: number;
}

/**
 * How stale a worker's view of the holds may be: each worker reads them from the database at most once
 * per this many milliseconds, so a hold stops every step that starts later than this after it was
 * confirmed (a step that started before may still send: it was already in the middle of its call).
 */
export const HOLD_STATE_MAX_AGE_MS = 1_000;

/** Release rates a confirmer may choose, items per minute. */
export const RELEASE_RATE = { min: 1, max: 6_000, default: 60 } as const;

/** The release workflow of one hold episode: one per holdId. */
export const holdReleaseWorkflowId = (holdId: string) => `hold-release/${holdId}`;
/** The subject the API signs a release with (contracts/shared/decision-proof.ts). */
export const holdProofSubject = (holdId: string) => `hold:${holdId}`;
export const HOLD_RELEASE_ACTION = 'release';

/**
 * A person as the API authenticated them (the shape of contracts/shared's DecisionMaker), declared here:
 * contracts/shared lists this module's workflow among the startable ones.
 */
export interface HoldPerson {
  keyId: string;
  name: string;
}

/** What the release workflow tells each held item, with the API's proof that the release is real. */
export interface HoldReleased {
  holdId: string;
  /** The admin who confirmed the release, as the proof names them. */
  by: HoldPerson;
  proof: unknown;
}
export const holdReleasedSignal = defineSignal<[HoldReleased]>('holdReleased');

export interface HoldReleaseInput {
  holdId: string;
  kind: HoldKind;
  ratePerMinute: number;
  by: HoldPerson;
  proof: unknown;
  /** Where the previous run stopped (continue-as-new): the last item signalled. */
  after?: { heldAt: string; id: string };
  signalled?: number;
}

/** One item a workflow recorded as held (activities → db/). */
export interface HeldItem {
  holdId: string;
  kind: HoldKind;
  workflowId: string;
  objectId: string;
  amountVnd: number;
}

export interface HeldItemPage {
  items: Array<{ id: string; workflowId: string; heldAt: string }>;
}

/** One kind as GET /v1/holds shows it (the console's hold panel is built against this shape). */
export interface HoldView {
  kind: HoldKind;
  status: HoldStatus;
  holdId: string | null;
  reason: string | null;
  proposedBy: string | null;
  /** Who agreed to hold: the proposer, then the confirmer. */
  heldBy: string[];
  heldAt: string | null;
  /** Items stopped under this hold and not resumed yet. */
  held: { count: number; totalVnd: number };
  release?: {
    ratePerMinute: number;
    proposedBy: string | null;
    confirmedBy: string | null;
    startedAt: string | null;
    remaining: number;
  };
}

/** A single disbursement's kind: by where the money goes. */
export const disbursementHoldKind = (receiverKind: 'wallet' | 'bank'): HoldKind =>
  receiverKind === 'wallet' ? 'wallet_disbursement' : 'bank_disbursement';

/** Passed to a step the release resumed: that hold no longer stops it, whatever a worker's cache says. */
export interface ResumedStep {
  releasedHold?: string;
}

export interface HoldActivities {
  /** Records the item held; answers whether its hold has not ended yet (else it resumes at once). */
  recordHeldItem(item: HeldItem): Promise<{ holdNotEnded: boolean }>;
  markHeldItemReleased(input: { holdId: string; workflowId: string }): Promise<void>;
  /** Whether the hold still stops its kind (the backstop after a long wait asks this). */
  holdStillOn(input: { holdId: string }): Promise<boolean>;
  listHeldItems(input: {
    holdId: string;
    after?: { heldAt: string; id: string };
    limit: number;
  }): Promise<HeldItemPage>;
  finishHoldRelease(input: { holdId: string }): Promise<void>;
}
