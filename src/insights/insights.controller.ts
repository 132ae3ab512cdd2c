import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../access/access.decorators';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { UuidParamPipe } from '../common/http/params';
import { ErrorCode } from '../common/errors/error-code';
import { ApiProblems } from '../docs/api-docs';
import { SpendInsightResponse } from './insight.dto';
import { InsightsService } from './insights.service';

@ApiTags('Insights')
@ApiBearerAuth()
@Controller('api/v1/transactions')
export class InsightsController {
  constructor(private readonly insights: InsightsService) {}

  @Post(':id/insights')
  @HttpCode(200)
  @ApiOperation({ summary: 'Spend category and a budgeting tip for a transaction (sender or receiver only)' })
  @ApiOkResponse({ type: SpendInsightResponse })
  @ApiProblems(400, 401, 403, ErrorCode.TransactionNotFound, ErrorCode.FeatureDisabled, ErrorCode.ServiceUnavailable)
  insight(@Param('id', UuidParamPipe) id: string, @CurrentUser() caller: AuthenticatedUser) {
    return this.insights.insightFor(id, caller);
  }
}
