/** Which money movement a route performs: route metadata, read by MovementInterceptor. */
export type MovementKind = 'transfer' | 'reversal' | 'deposit' | 'hold' | 'capture' | 'dispute';

export const MOVEMENT_KIND = 'payments:movement-kind';
