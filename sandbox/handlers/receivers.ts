import { bankScenario, walletScenario, type Scenario } from '../scenarios';

/** The decrypted receiver object of a document-3 request (already validated against the table). */
export type Receiver = Readonly<Record<string, unknown>>;

export function receiverOf(fields: Readonly<Record<string, unknown>>, name: string): Receiver {
  const value = fields[name];
  return typeof value === 'object' && value !== null ? (value as Receiver) : {};
}

/** The scenario of a wallet or bank receiver (bank: the account number, else the card number). */
export function scenarioOf(receiver: Receiver, channel: 'wallet' | 'bank'): Scenario {
  if (channel === 'wallet') return walletScenario(String(receiver.walletId ?? ''));
  const number = receiver.bankAccountNo ?? receiver.bankCardNo;
  return bankScenario(String(number ?? ''));
}
