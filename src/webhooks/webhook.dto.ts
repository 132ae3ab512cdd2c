import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  MaxLength,
} from 'class-validator';
import { IsVisibleText } from '../common/text/visible-text';
import type { DeliveryRow, DeliveryStatus } from './webhook-deliveries.repository';
import type { EndpointRow, EndpointStatus } from './webhook-endpoints.repository';

/** The outbox's event types, and `*` for every type, present and future. */
export const WEBHOOK_EVENT_TYPES = [
  'TransferCompleted',
  'TransferReversed',
  'HoldPlaced',
  'HoldCaptured',
  'HoldReleased',
  'HoldExpired',
  'DisputeOpened',
  'DisputeEscalated',
  'DisputeResolved',
];
const EVENT_CHOICES = ['*', ...WEBHOOK_EVENT_TYPES];

export class CreateWebhookRequest {
  @ApiProperty({ example: 'https://hooks.example.com/payments', maxLength: 2048 })
  @IsString()
  @MaxLength(2048)
  url: string;

  @ApiProperty({ example: ['TransferCompleted'], type: [String], enum: EVENT_CHOICES })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(20)
  @ArrayUnique()
  @IsIn(EVENT_CHOICES, { each: true, message: `each event must be one of: ${EVENT_CHOICES.join(', ')}` })
  events: string[];

  @ApiPropertyOptional({ example: 'Accounting sync', maxLength: 255 })
  @IsOptional()
  @IsString()
  @IsVisibleText()
  @MaxLength(255)
  description?: string;
}

export class WebhookResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'https://hooks.example.com/payments' })
  url: string;

  @ApiProperty({ example: ['TransferCompleted'], type: [String] })
  events: string[];

  @ApiProperty({ example: 'Accounting sync', nullable: true, type: String })
  description: string | null;

  @ApiProperty({
    enum: ['ENABLED', 'DISABLED'],
    description: 'DISABLED after a whole retry schedule failed with nothing delivered; an admin retry enables it',
  })
  status: EndpointStatus;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  static of(row: EndpointRow): WebhookResponse {
    return {
      id: row.id,
      url: row.url,
      events: row.events,
      description: row.description,
      status: row.status,
      createdAt: row.createdAt.toISOString(),
    };
  }
}

export class WebhookWithSecretResponse extends WebhookResponse {
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description: 'The signing secret; shown only here and on rotate-secret, never again',
  })
  secret: string;

  static withSecret(row: EndpointRow, secret: string): WebhookWithSecretResponse {
    return { ...WebhookResponse.of(row), secret };
  }
}

export class WebhookDeliveryResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid', description: 'The event, also sent as the webhook-id header' })
  eventId: string;

  @ApiProperty({ example: 'TransferCompleted' })
  eventType: string;

  @ApiProperty({ enum: ['PENDING', 'DELIVERED', 'FAILED'] })
  status: DeliveryStatus;

  @ApiProperty({ example: 1 })
  attempts: number;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  lastAttemptAt: string | null;

  @ApiProperty({ example: 200, nullable: true, type: Number })
  lastStatusCode: number | null;

  @ApiProperty({
    example: 'HTTP 500',
    nullable: true,
    type: String,
    description: 'Why the last attempt failed (status, timeout, network error, refused address); never the body',
  })
  lastError: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'When PENDING; null otherwise' })
  nextAttemptAt: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  static of(row: DeliveryRow): WebhookDeliveryResponse {
    return {
      id: row.id,
      eventId: row.eventId,
      eventType: row.eventType,
      status: row.status,
      attempts: row.attempts,
      lastAttemptAt: row.lastAttemptAt?.toISOString() ?? null,
      lastStatusCode: row.lastStatusCode,
      lastError: row.lastError,
      nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
      createdAt: row.createdAt.toISOString(),
    };
  }
}
