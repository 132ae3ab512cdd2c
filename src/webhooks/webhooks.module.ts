// Owns webhook_endpoints and webhook_deliveries: admin-managed endpoints, the fan-out from the
// outbox, and the delivery worker with its retries.
import { Module } from '@nestjs/common';
import { MovementsModule } from '../movements/movements.module';
import { AttemptRecorder } from './attempt-recorder';
import { DeliveryWorker } from './delivery-worker';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { WebhookMaintenanceJob } from './webhook-maintenance.job';
import { webhookMetricProviders } from './webhook-metrics';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/**
 * Standard Webhooks: admin-managed endpoints, and a second consumer of the outbox beside the
 * Kafka relay. Deliveries are written by a trigger on outbox_events (sql/webhook_fan_out.sql),
 * so neither the money path nor the relay knows this module exists; the worker only reads how
 * busy the money path is (MoneyPathLoad), to give way at its peaks.
 */
@Module({
  imports: [MovementsModule],
  controllers: [WebhooksController],
  providers: [
    WebhookEndpointsRepository,
    WebhookDeliveriesRepository,
    AttemptRecorder,
    DeliveryWorker,
    WebhookMaintenanceJob,
    WebhooksService,
    ...webhookMetricProviders,
  ],
})
export class WebhooksModule {}
