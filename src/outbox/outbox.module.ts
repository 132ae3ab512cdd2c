import { Module } from '@nestjs/common';
import { EventPublisher, InProcessEventPublisher } from './event-publisher';
import { OutboxRelay } from './outbox-relay.service';

@Module({
  providers: [InProcessEventPublisher, { provide: EventPublisher, useExisting: InProcessEventPublisher }, OutboxRelay],
  exports: [OutboxRelay, InProcessEventPublisher],
})
export class OutboxModule {}
