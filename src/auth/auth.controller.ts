import { Body, Controller, HttpCode, Post, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiProblems } from '../docs/api-docs';
import { ValidationError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { CurrentUser, Public } from '../access/access.decorators';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { LoginRequest, LoginResponse } from './login.dto';
import { LoginService } from './login.service';
import { RevocationService } from './revocation.service';
import { TokenService } from './token.service';

@ApiTags('Authentication')
@Controller('api/v1/auth')
export class AuthController {
  constructor(
    private readonly logins: LoginService,
    private readonly tokens: TokenService,
    private readonly revocations: RevocationService,
  ) {}

  @Public()
  @Post('login')
  @HttpCode(200)
  @ApiOperation({ summary: 'Exchange a registered UPI ID (and its PIN, when it has one) for a bearer token' })
  @ApiOkResponse({ type: LoginResponse })
  @ApiProblems(400, 401, 422, ErrorCode.RateLimitExceeded, ErrorCode.LoginLocked)
  async login(@Body() body: LoginRequest, @Req() request: FastifyRequest): Promise<LoginResponse> {
    const user = await this.logins.login(body.upiId, body.pin, request.ip);
    return { ...(await this.tokens.issue(user)), upiId: user.upiId, referenceId: user.referenceId };
  }

  @Post('logout')
  @HttpCode(204)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Revoke the presented token, or with all=true every token of the caller' })
  @ApiQuery({ name: 'all', required: false, type: 'boolean' })
  @ApiNoContentResponse({ description: 'Revoked: the token(s) answer 401 from now on' })
  @ApiProblems(401, 422)
  async logout(@CurrentUser() caller: AuthenticatedUser, @Query('all') all?: string): Promise<void> {
    if (all !== undefined && all !== 'true' && all !== 'false') {
      throw new ValidationError({ all: 'all must be true or false' });
    }
    if (all === 'true') return this.revocations.revokeAll(caller.upiId);
    await this.revocations.revokeToken({
      upiId: caller.upiId,
      jti: caller.token!.id,
      expiresAtMs: caller.token!.expiresAtMs,
    });
  }
}
