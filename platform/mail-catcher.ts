/**
 * The dev mail catcher: a local SMTP receiver (smtp-server) that parses each message (mailparser) and
 * keeps the newest in memory, so a developer sees each notice as the customer would (GET /v1/dev/mail, the
 * console's #/mail page). Development and tests only: it accepts anything from anyone on its address.
 */
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface CaughtMail {
  id: number;
  receivedAt: string;
  messageId: string | null;
  from: string;
  to: string[];
  subject: string;
  /** Content-Language as sent: the notice's language. */
  lang: string | null;
  kind: string | null;
  noticeKey: string | null;
  text: string;
}

export interface MailCatcher {
  readonly port: number;
  /** smtp://127.0.0.1:<port>: what SMTP_URL is set to while the catcher runs. */
  readonly url: string;
  /** Newest first. */
  messages(): CaughtMail[];
  stop(): Promise<void>;
}

/** Messages kept; the oldest are dropped beyond it. */
export const MAIL_CATCHER_CAPACITY = 500;

const header = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** Port 0: a free port (tests). */
export async function startMailCatcher(
  options: { port: number; host?: string; capacity?: number } = { port: 0 },
): Promise<MailCatcher> {
  const capacity = options.capacity ?? MAIL_CATCHER_CAPACITY;
  const caught: CaughtMail[] = [];
  let nextId = 1;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          caught.unshift({
            id: nextId++,
            receivedAt: new Date().toISOString(),
            messageId: mail.messageId ?? null,
            from: mail.from?.text ?? session.envelope.mailFrom?.toString() ?? '',
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            subject: mail.subject ?? '',
            lang: header(mail.headers.get('content-language')),
            kind: header(mail.headers.get('x-payrun-notice-kind')),
            noticeKey: header(mail.headers.get('x-payrun-notice-key')),
            text: mail.text ?? '',
          });
          caught.splice(capacity);
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  server.on('error', () => undefined); // a client's broken connection must not end the catcher
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    url: `smtp://${host}:${port}`,
    messages: () => caught.map((mail) => ({ ...mail })),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
