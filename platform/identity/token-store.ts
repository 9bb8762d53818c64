/**
 * Where payrun's own provider keeps what it issues (oidc-provider's adapter interface). The library's
 * default is a process-local LRU of 1000 entries: a restart, or a busy hour, forgets refresh tokens, and
 * payrun reads a forgotten refresh token (`invalid_grant`) as a person removed at the provider
 * (api/identity/recheck.ts). So grants and refresh tokens are also written to a file (0600, like the
 * provider's keys) and read back at start; everything short-lived (sessions, interactions, codes) stays in
 * memory, where losing it only means signing in again.
 */
import fs from 'node:fs';

type Payload = Record<string, unknown> & { grantId?: string; uid?: string; userCode?: string };
interface Entry {
  model: string;
  payload: Payload;
  /** Epoch milliseconds; entries past it are gone. */
  expiresAt: number;
}

/** Models whose loss would read as a person's removal. */
const DURABLE = new Set(['Grant', 'RefreshToken']);

export interface TokenStoreAdapter {
  upsert(id: string, payload: Payload, expiresIn: number): Promise<void>;
  find(id: string): Promise<Payload | undefined>;
  findByUid(uid: string): Promise<Payload | undefined>;
  findByUserCode(userCode: string): Promise<Payload | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

/** The adapter class oidc-provider instantiates per model; `file` unset: memory only (tests). */
export function tokenStore(file?: string): new (model: string) => TokenStoreAdapter {
  const entries = new Map<string, Entry>();
  if (file && fs.existsSync(file)) {
    const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, Entry>;
    for (const [key, entry] of Object.entries(saved)) entries.set(key, entry);
  }
  const persist = () => {
    if (!file) return;
    const now = Date.now();
    const durable = Object.fromEntries(
      [...entries].filter(([, entry]) => DURABLE.has(entry.model) && entry.expiresAt > now),
    );
    // Written whole, then renamed over the old file: a crash mid-write leaves the previous file intact.
    const temporary = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, JSON.stringify(durable), { mode: 0o600 });
    fs.renameSync(temporary, file);
  };
  const live = (key: string): Entry | undefined => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= Date.now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };
  const changed = (model: string) => {
    if (DURABLE.has(model)) persist();
  };

  return class FileBackedAdapter implements TokenStoreAdapter {
    constructor(private readonly model: string) {}

    private key(id: string) {
      return `${this.model}:${id}`;
    }

    async upsert(id: string, payload: Payload, expiresIn: number) {
      entries.set(this.key(id), { model: this.model, payload, expiresAt: Date.now() + expiresIn * 1000 });
      changed(this.model);
    }

    async find(id: string) {
      return live(this.key(id))?.payload;
    }

    async findByUid(uid: string) {
      for (const [key, entry] of entries) {
        if (entry.model === this.model && entry.payload.uid === uid && live(key)) return entry.payload;
      }
      return undefined;
    }

    async findByUserCode(userCode: string) {
      for (const [key, entry] of entries) {
        if (entry.model === this.model && entry.payload.userCode === userCode && live(key))
          return entry.payload;
      }
      return undefined;
    }

    async consume(id: string) {
      const entry = live(this.key(id));
      if (!entry) return;
      entry.payload.consumed = Math.floor(Date.now() / 1000);
      changed(this.model);
    }

    async destroy(id: string) {
      entries.delete(this.key(id));
      changed(this.model);
    }

    async revokeByGrantId(grantId: string) {
      let durable = false;
      for (const [key, entry] of entries) {
        if (entry.payload.grantId !== grantId) continue;
        entries.delete(key);
        durable ||= DURABLE.has(entry.model);
      }
      if (durable) persist();
    }
  };
}
