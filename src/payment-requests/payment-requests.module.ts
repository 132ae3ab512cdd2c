// Owns payment_requests: upi://pay links and QR codes to be paid; paying one is a transfer,
// whose SQL function marks the request PAID (./sql).
import { Module } from '@nestjs/common';
import { MovementsModule } from '../movements/movements.module';
import { TransactionsModule } from '../transactions/transactions.module';
import { UsersModule } from '../users/users.module';
import { PaymentRequestsController } from './payment-requests.controller';
import { PaymentRequestsRepository } from './payment-requests.repository';
import { PaymentRequestsService } from './payment-requests.service';
import { QrCodes } from './qr-codes';

/**
 * Payment requests: ask to be paid with a upi://pay link or a QR code. Paying one goes through
 * TransactionsModule's transfer path; the hooks it calls are in ./sql.
 */
@Module({
  imports: [TransactionsModule, MovementsModule, UsersModule],
  controllers: [PaymentRequestsController],
  providers: [PaymentRequestsRepository, PaymentRequestsService, QrCodes],
})
export class PaymentRequestsModule {}
