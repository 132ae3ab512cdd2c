import { makeGaugeProvider } from '@willsoto/nestjs-prometheus';

export const DISPUTES = 'payments_disputes';
export const DISPUTES_OVERDUE = 'payments_disputes_overdue';

export const disputeMetricProviders = [
  makeGaugeProvider({
    name: DISPUTES,
    help: 'Disputes in progress, by status (OPEN: awaiting the payee; ESCALATED: awaiting an admin)',
    labelNames: ['status'],
  }),
  makeGaugeProvider({ name: DISPUTES_OVERDUE, help: 'ESCALATED disputes past their resolveBy turnaround' }),
];
