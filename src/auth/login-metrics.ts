import { makeCounterProvider } from '@willsoto/nestjs-prometheus';

export const LOGIN_FAILURES = 'payments_login_failures_total';
export const LOGIN_LOCKOUTS = 'payments_login_lockouts_total';

export type LoginFailureReason = 'unknown_or_wrong_pin' | 'locked' | 'rate_limited';

export const loginMetricProviders = [
  makeCounterProvider({
    name: LOGIN_FAILURES,
    help: 'Refused logins by reason (unknown_or_wrong_pin, locked, rate_limited)',
    labelNames: ['reason'],
  }),
  makeCounterProvider({ name: LOGIN_LOCKOUTS, help: 'UPI IDs locked after too many consecutive wrong PINs' }),
];
