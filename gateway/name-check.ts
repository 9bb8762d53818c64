/**
 * What a wallet check says of the receiver's name (README assumption 32). The check carries `walletName`
 * and answers no name back; a wallet that exists and takes payouts but is registered under another name is
 * refused with 4003, "Receiver account info invalid". Other refusals say the wallet itself cannot receive.
 */
const RECEIVER_INFO_INVALID = 4003;

/** Whether a wallet check's refusal is about the receiver's details (the name) rather than the wallet. */
export const refusesReceiverDetails = (resultCode: number): boolean => resultCode === RECEIVER_INFO_INVALID;
