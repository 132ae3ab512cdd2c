import { Body, Controller, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentUser, Roles } from '../access/access.decorators';
import { type AuthenticatedUser, ROLE_ADMIN } from '../access/authenticated-user';
import { requireOwner } from '../access/access-rules';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { UuidParamPipe } from '../common/http/params';
import { ApiProblems } from '../docs/api-docs';
import { AdminActionResponse, FreezeRequest, LimitOverridesRequest, LimitsView } from './limits.dto';
import { LimitsService } from './limits.service';

const notFound = (referenceId: string) => `No user with reference ID ${referenceId}`;

@ApiTags('Limits')
@ApiBearerAuth()
@Controller('api/v1')
export class LimitsController {
  constructor(private readonly limits: LimitsService) {}

  @Get('users/:referenceId/limits')
  @ApiOperation({ summary: "An account's limits, what is used today and when it resets (owner or admin)" })
  @ApiParam({ name: 'referenceId', format: 'uuid' })
  @ApiOkResponse({ type: LimitsView })
  @ApiProblems(400, 401, 403, ErrorCode.UserNotFound)
  async view(
    @Param('referenceId', UuidParamPipe) referenceId: string,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<LimitsView> {
    const found = await this.limits.view(referenceId);
    if (caller.roles.includes(ROLE_ADMIN) && found) return found.view;
    return requireOwner(caller, found, notFound(referenceId)).view;
  }

  @Put('admin/users/:referenceId/limits')
  @Roles(ROLE_ADMIN)
  @ApiOperation({ summary: "Override an account's daily limits (admin); null goes back to the profile" })
  @ApiParam({ name: 'referenceId', format: 'uuid' })
  @ApiOkResponse({ type: LimitsView })
  @ApiProblems(400, 401, 403, ErrorCode.UserNotFound, 415, 422)
  async override(
    @Param('referenceId', UuidParamPipe) referenceId: string,
    @Body() body: LimitOverridesRequest,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<LimitsView> {
    await this.limits.setOverrides(referenceId, body.toOverrides(), caller.upiId.toLowerCase());
    return this.current(referenceId);
  }

  @Post('admin/users/:referenceId/freeze')
  @HttpCode(200)
  @Roles(ROLE_ADMIN)
  @ApiOperation({ summary: 'Freeze an account (admin): it neither sends nor receives; reads and login go on' })
  @ApiParam({ name: 'referenceId', format: 'uuid' })
  @ApiOkResponse({ type: LimitsView })
  @ApiProblems(400, 401, 403, ErrorCode.UserNotFound, 415, 422)
  async freeze(
    @Param('referenceId', UuidParamPipe) referenceId: string,
    @Body() body: FreezeRequest,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<LimitsView> {
    await this.limits.setFrozen(referenceId, true, body.reason, caller.upiId.toLowerCase());
    return this.current(referenceId);
  }

  @Post('admin/users/:referenceId/unfreeze')
  @HttpCode(200)
  @Roles(ROLE_ADMIN)
  @ApiOperation({ summary: 'Unfreeze an account (admin)' })
  @ApiParam({ name: 'referenceId', format: 'uuid' })
  @ApiOkResponse({ type: LimitsView })
  @ApiProblems(400, 401, 403, ErrorCode.UserNotFound, 415, 422)
  async unfreeze(
    @Param('referenceId', UuidParamPipe) referenceId: string,
    @Body() body: FreezeRequest,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<LimitsView> {
    await this.limits.setFrozen(referenceId, false, body.reason, caller.upiId.toLowerCase());
    return this.current(referenceId);
  }

  @Get('admin/users/:referenceId/actions')
  @Roles(ROLE_ADMIN)
  @ApiOperation({ summary: 'The admin actions log of an account, newest first (admin): append-only' })
  @ApiParam({ name: 'referenceId', format: 'uuid' })
  @ApiOkResponse({ type: AdminActionResponse, isArray: true })
  @ApiProblems(400, 401, 403, ErrorCode.UserNotFound)
  async actions(@Param('referenceId', UuidParamPipe) referenceId: string): Promise<AdminActionResponse[]> {
    const actions = await this.limits.actions(referenceId);
    if (!actions) throw new ApiError(ErrorCode.UserNotFound, notFound(referenceId));
    return actions;
  }

  private async current(referenceId: string): Promise<LimitsView> {
    const found = await this.limits.view(referenceId);
    if (!found) throw new ApiError(ErrorCode.UserNotFound, notFound(referenceId));
    return found.view;
  }
}
