/** The handler pattern for transfer events; the topic behind it is KAFKA_TOPIC, chosen at run time. */
export const TRANSFER_EVENTS = 'transfer-events';

export const TRANSFER_COMPLETED = 'TransferCompleted';

/** The value of a transfer event, as the transfer writes it into the outbox (amount as a 4-decimal string). */
export interface TransferEvent {
  eventId: string;
  eventType: string;
  occurredAt: string;
  transactionId: number;
  transactionReferenceId: string;
  senderUpiId: string;
  receiverUpiId: string;
  amount: string;
  currency: string;
  note?: string | null;
}
