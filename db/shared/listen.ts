/**
 * A LISTEN on a PostgreSQL channel that stays open: on a connection of its own, outside the pool (a listening
 * connection must stay open, and a pooled one goes back to the pool), opened again after `retryMs` whenever it is
 * lost or cannot be opened. What a listener misses while it is closed is its owner's to find (`opened` says when
 * it listens again, `lost` when it stopped).
 */
import type { Db } from './knex';

type RawConnection = {
  query(sql: string): Promise<unknown>;
  on(event: string, handler: (...args: unknown[]) => void): void;
  end(): Promise<void>;
};

export interface ChannelListener {
  /** True while the LISTEN is in force. */
  listening(): boolean;
  stop(): Promise<void>;
}

export interface ListenHandlers {
  /** Each NOTIFY's payload ('' when it carried none). */
  notified(payload: string): void;
  /** The LISTEN is in force (first time, and after each reopening). */
  opened?(): void;
  /** The LISTEN stopped (`listening`: its connection was lost) or could not start (`opening`); `error` says why. */
  lost?(error: unknown, when: 'opening' | 'listening'): void;
}

/** Channel names are payrun's own constants (identifiers, never input): LISTEN takes no parameter. */
export function listenOn(
  db: Db,
  channel: string,
  handlers: ListenHandlers,
  retryMs: number,
): ChannelListener {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`Not a channel name: ${channel}`);
  let connection: RawConnection | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const again = () => {
    if (!stopped) retry = setTimeout(() => void open(), retryMs).unref();
  };
  const open = async () => {
    if (stopped) return;
    let opening: RawConnection | undefined;
    try {
      opening = (await (
        db.client as { acquireRawConnection(): Promise<RawConnection> }
      ).acquireRawConnection()) as RawConnection;
      const lost = (error?: unknown) => {
        if (connection !== opening) return;
        connection = undefined;
        void opening?.end().catch(() => undefined);
        handlers.lost?.(error, 'listening');
        again();
      };
      opening.on('notification', (message) =>
        handlers.notified((message as { payload?: string }).payload ?? ''),
      );
      opening.on('error', lost);
      opening.on('end', () => lost());
      await opening.query(`listen ${channel}`);
      if (stopped) {
        await opening.end();
        return;
      }
      connection = opening;
      handlers.opened?.();
    } catch (error) {
      void opening?.end().catch(() => undefined);
      handlers.lost?.(error, 'opening');
      again();
    }
  };
  void open();
  return {
    listening: () => connection !== undefined,
    async stop() {
      stopped = true;
      clearTimeout(retry);
      const closing = connection;
      connection = undefined;
      await closing?.end().catch(() => undefined);
    },
  };
}
