import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsBoolean, IsIn } from 'class-validator';
import { CurrentUser, Roles } from '../access/access.decorators';
import { type AuthenticatedUser, ROLE_ADMIN } from '../access/authenticated-user';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { UuidParamPipe } from '../common/http/params';
import { ApiProblems } from '../docs/api-docs';
import { RoleGrantsService } from './role-grants.service';

const GRANTABLE_ROLES = [ROLE_ADMIN];

export class RoleGrantRequest {
  @ApiProperty({ enum: GRANTABLE_ROLES, example: ROLE_ADMIN })
  @IsIn(GRANTABLE_ROLES, { message: `role must be one of ${GRANTABLE_ROLES.join(', ')}` })
  role: string;

  @ApiProperty({ example: true, description: 'true grants the role, false revokes it' })
  @IsBoolean({ message: 'granted must be true or false' })
  granted: boolean;
}

export class RoleGrantResponse {
  @ApiProperty({ format: 'uuid' }) referenceId: string;
  @ApiProperty({ example: 'alice@okbank' }) upiId: string;
  @ApiProperty({ example: ['ROLE_USER', 'ROLE_ADMIN'] }) roles: string[];
  @ApiProperty({ enum: ['granted', 'revoked', 'unchanged'] }) outcome: string;
}

@ApiTags('Admin')
@ApiBearerAuth()
@Controller('api/v1/admin/users')
export class RolesController {
  constructor(private readonly grants: RoleGrantsService) {}

  @Post(':referenceId/roles')
  @HttpCode(200)
  @Roles(ROLE_ADMIN)
  @ApiOperation({
    summary: 'Grant or revoke ROLE_ADMIN on an existing account (admin)',
    description:
      'Recorded in PostgreSQL with who and when. Every request checks the current grants, so a revoked ' +
      "admin's existing tokens lose the role within about a second on every instance.",
  })
  @ApiParam({ name: 'referenceId', format: 'uuid' })
  @ApiOkResponse({ type: RoleGrantResponse })
  @ApiProblems(400, 401, 403, ErrorCode.UserNotFound, 415, 422)
  async setRole(
    @Param('referenceId', UuidParamPipe) referenceId: string,
    @Body() body: RoleGrantRequest,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<RoleGrantResponse> {
    const result = await this.grants.setRole({ referenceId }, body.role, body.granted, caller.upiId.toLowerCase());
    if (!result) throw new ApiError(ErrorCode.UserNotFound, `No user with reference ID ${referenceId}`);
    const roles = await this.grants.rolesOf(result);
    return { referenceId: result.referenceId, upiId: result.upiId, roles: [...roles], outcome: result.outcome };
  }
}
