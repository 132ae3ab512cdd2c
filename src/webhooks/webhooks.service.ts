import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ApiError, ValidationError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { AppConfig } from '../config/app-config';
import { DeliveryWorker } from './delivery-worker';
import { checkUrlShape, systemResolver, type UrlPolicy, UnsafeUrlError, vetDestination } from './url-safety';
import { type DeliveryStatus, WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { type EndpointRow, WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { newWebhookSecret } from './webhook-secret';
import type { CreateWebhookRequest } from './webhook.dto';

/** The admin's use cases on webhook endpoints and their deliveries. */
@Injectable()
export class WebhooksService {
  private readonly policy: UrlPolicy;
  private readonly endpointsMax: number;

  constructor(
    config: AppConfig,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly worker: DeliveryWorker,
  ) {
    this.policy = { allowHttp: config.webhookAllowHttp, allowPrivateNetworks: config.webhookAllowPrivateNetworks };
    this.endpointsMax = config.webhookEndpointsMax;
  }

  /** The URL is vetted now, after DNS resolution, and again before every attempt. */
  async create(request: CreateWebhookRequest): Promise<{ endpoint: EndpointRow; secret: string }> {
    try {
      await vetDestination(checkUrlShape(request.url, this.policy), this.policy, systemResolver);
    } catch (error) {
      if (error instanceof UnsafeUrlError) throw new ValidationError({ url: `url ${error.message}` });
      throw error;
    }
    const secret = newWebhookSecret();
    const endpoint = await this.endpoints.insertWithin(this.endpointsMax, {
      id: randomUUID(),
      url: request.url,
      events: request.events,
      description: request.description ?? null,
      secret,
    });
    if (!endpoint) {
      throw new ApiError(
        ErrorCode.Conflict,
        `There are already ${this.endpointsMax} webhook endpoints, the most allowed (WEBHOOK_ENDPOINTS_MAX): ` +
          'delete one before adding another',
      );
    }
    return { endpoint, secret };
  }

  list(): Promise<EndpointRow[]> {
    return this.endpoints.list();
  }

  async get(id: string): Promise<EndpointRow> {
    return (await this.endpoints.find(id)) ?? notFound(id);
  }

  async delete(id: string): Promise<void> {
    if (!(await this.endpoints.delete(id))) notFound(id);
  }

  async rotateSecret(id: string): Promise<{ endpoint: EndpointRow; secret: string }> {
    const secret = newWebhookSecret();
    const endpoint = (await this.endpoints.replaceSecret(id, secret)) ?? notFound(id);
    return { endpoint, secret };
  }

  async deliveriesOf(id: string, status: DeliveryStatus | undefined, limit: number) {
    const rows = await this.deliveries.listForEndpoint(id, status, limit);
    if (rows.length === 0) await this.get(id); // an unknown endpoint is 404, a quiet one an empty list
    return rows;
  }

  async retry(id: string, deliveryId: string): Promise<void> {
    const outcome = await this.deliveries.retry(id, deliveryId);
    if (outcome === 'not-found') {
      await this.get(id);
      throw new ApiError(ErrorCode.WebhookDeliveryNotFound, `No delivery ${deliveryId} for webhook endpoint ${id}`);
    }
    if (outcome === 'already-pending') {
      throw new ApiError(ErrorCode.Conflict, 'This delivery is pending: it is attempted again at its nextAttemptAt');
    }
    this.worker.nudge();
  }
}

function notFound(id: string): never {
  throw new ApiError(ErrorCode.WebhookNotFound, `No webhook endpoint ${id}`);
}
