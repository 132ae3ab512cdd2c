/** Which money movement a route performs: route metadata, read by the idempotency interceptor. */
export type MovementKind = 'transfer' | 'reversal' | 'deposit';

export const MOVEMENT_KIND = 'payments:movement-kind';
