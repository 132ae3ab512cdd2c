import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ScheduleModule } from '@nestjs/schedule';
import { ActuatorModule } from './actuator/actuator.module';
import { AuditModule } from './audit/audit.module';
import { AuthModule } from './auth/auth.module';
import type { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { ProblemFilter } from './common/errors/problem.filter';
import { structuredLogging } from './common/logging';
import { DatabaseModule } from './database/database.module';
import { DisputesModule } from './disputes/disputes.module';
import type { OpenedDatabase } from './database/database.module';
import { IdempotencyModule } from './idempotency/idempotency.module';
import { InsightsModule } from './insights/insights.module';
import { LedgerModule } from './ledger/ledger.module';
import { MetricsModule } from './metrics/metrics.module';
import { OutboxModule } from './outbox/outbox.module';
import { PartitionsModule } from './partitions/partitions.module';
import { PaymentRequestsModule } from './payment-requests/payment-requests.module';
import { PayeesModule } from './payees/payees.module';
import { HoldsModule } from './holds/holds.module';
import { ResilienceModule } from './resilience/resilience.module';
import { SchedulesModule } from './schedules/schedules.module';
import { StatementsModule } from './statements/statements.module';
import { TransactionsModule } from './transactions/transactions.module';
import { TreasuryModule } from './treasury/treasury.module';
import { UsersModule } from './users/users.module';
import { LimitsModule } from './limits/limits.module';
import { WebhooksModule } from './webhooks/webhooks.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, database: OpenedDatabase): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        structuredLogging(config.logLevel),
        DatabaseModule.forRoot(database),
        ScheduleModule.forRoot(),
        PartitionsModule,
        MetricsModule,
        ResilienceModule,
        IdempotencyModule,
        OutboxModule,
        UsersModule,
        // After users: the ledger route's place in the API document stays where it was when users served it.
        LedgerModule,
        AuthModule,
        TransactionsModule,
        PayeesModule,
        TreasuryModule,
        AuditModule,
        InsightsModule,
        StatementsModule,
        WebhooksModule,
        PaymentRequestsModule,
        HoldsModule,
        LimitsModule,
        SchedulesModule,
        DisputesModule,
        ActuatorModule,
      ],
      providers: [{ provide: APP_FILTER, useClass: ProblemFilter }],
    };
  }
}
