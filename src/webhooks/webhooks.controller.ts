import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { Roles } from '../access/access.decorators';
import { ROLE_ADMIN } from '../access/authenticated-user';
import { ValidationError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { UuidParamPipe } from '../common/http/params';
import { ApiProblems } from '../docs/api-docs';
import { DELIVERY_STATUSES, type DeliveryStatus } from './webhook-deliveries.repository';
import {
  CreateWebhookRequest,
  WebhookDeliveryResponse,
  WebhookResponse,
  WebhookWithSecretResponse,
} from './webhook.dto';
import { WebhooksService } from './webhooks.service';

const DEFAULT_DELIVERY_LIMIT = 100;
const MAX_DELIVERY_LIMIT = 1000;

/** Webhook endpoints and their deliveries: admins only. */
@ApiTags('Admin')
@ApiBearerAuth()
@Roles(ROLE_ADMIN)
@Controller('api/v1/admin/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @Roles(ROLE_ADMIN)
  @ApiOperation({
    summary: 'Subscribe an HTTPS endpoint to events (admin); the signing secret is shown once',
    description:
      'The URL must use https and must not resolve to a loopback, private or link-local address ' +
      '(422 on `url`); both are checked again before every delivery. `events` lists event types, or `["*"]`. ' +
      'The service keeps at most WEBHOOK_ENDPOINTS_MAX endpoints (default 50): one more is 409 `conflict`.',
  })
  @ApiBody({ type: CreateWebhookRequest })
  @ApiCreatedResponse({ type: WebhookWithSecretResponse })
  @ApiProblems(400, 401, 403, ErrorCode.Conflict, 415, ErrorCode.ValidationFailed, 503)
  async create(@Body() request: CreateWebhookRequest): Promise<WebhookWithSecretResponse> {
    const { endpoint, secret } = await this.webhooks.create(request);
    return WebhookWithSecretResponse.withSecret(endpoint, secret);
  }

  @Get()
  @Roles(ROLE_ADMIN)
  @ApiOperation({ summary: 'Every webhook endpoint, newest first (admin); secrets are never listed' })
  @ApiOkResponse({ type: [WebhookResponse] })
  @ApiProblems(401, 403, 503)
  async list(): Promise<WebhookResponse[]> {
    return (await this.webhooks.list()).map(WebhookResponse.of);
  }

  @Get(':id')
  @Roles(ROLE_ADMIN)
  @ApiOperation({ summary: 'One webhook endpoint (admin), without its secret' })
  @ApiOkResponse({ type: WebhookResponse })
  @ApiProblems(400, 401, 403, ErrorCode.WebhookNotFound, 503)
  async get(@Param('id', UuidParamPipe) id: string): Promise<WebhookResponse> {
    return WebhookResponse.of(await this.webhooks.get(id));
  }

  @Delete(':id')
  @Roles(ROLE_ADMIN)
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a webhook endpoint and its deliveries (admin); nothing more is sent to it' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblems(400, 401, 403, ErrorCode.WebhookNotFound, 503)
  async delete(@Param('id', UuidParamPipe) id: string): Promise<void> {
    await this.webhooks.delete(id);
  }

  @Post(':id/rotate-secret')
  @Roles(ROLE_ADMIN)
  @HttpCode(200)
  @ApiOperation({
    summary: 'Replace the signing secret (admin); the new one is shown once',
    description: 'Every attempt from now on, retries of earlier events included, is signed with the new secret.',
  })
  @ApiOkResponse({ type: WebhookWithSecretResponse })
  @ApiProblems(400, 401, 403, ErrorCode.WebhookNotFound, 503)
  async rotateSecret(@Param('id', UuidParamPipe) id: string): Promise<WebhookWithSecretResponse> {
    const { endpoint, secret } = await this.webhooks.rotateSecret(id);
    return WebhookWithSecretResponse.withSecret(endpoint, secret);
  }

  @Get(':id/deliveries')
  @Roles(ROLE_ADMIN)
  @ApiOperation({ summary: "An endpoint's deliveries, newest first (admin)" })
  @ApiQuery({ name: 'status', required: false, enum: DELIVERY_STATUSES })
  @ApiQuery({ name: 'limit', required: false, type: 'integer', example: DEFAULT_DELIVERY_LIMIT })
  @ApiOkResponse({ type: [WebhookDeliveryResponse] })
  @ApiProblems(400, 401, 403, ErrorCode.WebhookNotFound, ErrorCode.ValidationFailed, 503)
  async deliveries(
    @Param('id', UuidParamPipe) id: string,
    @Query('status') status?: string,
    @Query('limit') limit?: string,
  ): Promise<WebhookDeliveryResponse[]> {
    const errors: Record<string, string> = {};
    if (status !== undefined && !DELIVERY_STATUSES.includes(status as DeliveryStatus)) {
      errors.status = `status must be one of: ${DELIVERY_STATUSES.join(', ')}`;
    }
    const size = limit === undefined ? DEFAULT_DELIVERY_LIMIT : Number(limit);
    if (!/^\d+$/.test(limit ?? '1') || size < 1 || size > MAX_DELIVERY_LIMIT) {
      errors.limit = `limit must be an integer from 1 to ${MAX_DELIVERY_LIMIT}`;
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    const rows = await this.webhooks.deliveriesOf(id, status as DeliveryStatus | undefined, size);
    return rows.map(WebhookDeliveryResponse.of);
  }

  @Post(':id/deliveries/:deliveryId/retry')
  @Roles(ROLE_ADMIN)
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send a finished delivery again (admin): due now, with a new round of the retry schedule',
    description: 'Also enables the endpoint again if it was DISABLED. A PENDING delivery is already queued: 409.',
  })
  @ApiParam({ name: 'deliveryId', format: 'uuid', example: '3b9f2c1e-5a6d-4e7f-8a9b-0c1d2e3f4a5b' })
  @ApiAcceptedResponse({ description: 'Queued; its progress shows in the delivery list' })
  @ApiProblems(400, 401, 403, ErrorCode.WebhookNotFound, ErrorCode.WebhookDeliveryNotFound, 409, 503)
  async retry(
    @Param('id', UuidParamPipe) id: string,
    @Param('deliveryId', UuidParamPipe) deliveryId: string,
  ): Promise<void> {
    await this.webhooks.retry(id, deliveryId);
  }
}
