import { Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module';
import { StatementsController } from './statements.controller';
import { StatementsService } from './statements.service';

/** Statements and balance history: reads of a user's ledger over a period. */
@Module({
  imports: [UsersModule],
  controllers: [StatementsController],
  providers: [StatementsService],
})
export class StatementsModule {}
