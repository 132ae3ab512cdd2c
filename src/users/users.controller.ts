import { Body, Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { ErrorCode } from '../common/errors/error-code';
import { ApiPageResponse, ApiProblems } from '../docs/api-docs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentUser, Public, Roles } from '../access/access.decorators';
import { requireOwner } from '../access/access-rules';
import { type AuthenticatedUser, ROLE_ADMIN } from '../access/authenticated-user';
import { invalidRequest, ValidationError } from '../common/errors/api-error';
import { MoneyFormatError, parseMoney } from '../common/money/money';
import { type Page, readPageRequest } from '../common/paging/page';
import { UuidParamPipe } from '../common/http/params';
import { UPI_ID_MESSAGE, UPI_ID_PATTERN } from './upi-id';
import { RegisterUserRequest, UserAccountResponse, UserResponse } from './user.dto';
import { RegistrationRateLimiter } from './registration-rate-limiter';
import { USER_SORT_KEYS, UsersService } from './users.service';

@ApiTags('Users')
@Controller('api/v1/users')
export class UsersController {
  constructor(
    private readonly users: UsersService,
    private readonly registrations: RegistrationRateLimiter,
  ) {}

  @Public()
  @Post()
  @ApiOperation({ summary: 'Register a user with an opening balance' })
  @ApiCreatedResponse({ type: UserResponse, description: 'Registered; Location names the new user' })
  @ApiProblems(
    400,
    ErrorCode.DuplicateUpiId,
    415,
    ErrorCode.ValidationFailed,
    ErrorCode.InvalidUpiId,
    ErrorCode.RateLimitExceeded,
    503,
  )
  async register(
    @Body() body: RegisterUserRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.registrations.consume(request.ip);
    const user = await this.users.register(body);
    void reply.status(201).header('Location', `/api/v1/users/${user.referenceId}`);
    return UserResponse.of(user);
  }

  @Get()
  @Roles(ROLE_ADMIN)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'List all users (admin)' })
  @ApiQuery({ name: 'page', required: false, type: 'integer', example: 0 })
  @ApiQuery({ name: 'size', required: false, type: 'integer', example: 10 })
  @ApiQuery({ name: 'sortBy', required: false, enum: USER_SORT_KEYS })
  @ApiPageResponse(UserResponse)
  @ApiProblems(400, 401, 403, 422)
  async list(@Query() query: Record<string, unknown>): Promise<Page<UserResponse>> {
    const request = readPageRequest(query, { allowed: USER_SORT_KEYS, fallback: 'userId' });
    const page = await this.users.list(request);
    return { ...page, content: page.content.map(UserResponse.of) };
  }

  @Get('balance/:amount')
  @Roles(ROLE_ADMIN)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Users whose balance exceeds an amount (admin)' })
  @ApiParam({ name: 'amount', example: '1000.00', description: 'INR threshold' })
  @ApiOkResponse({ type: [UserResponse] })
  @ApiProblems(400, 401, 403)
  async aboveBalance(@Param('amount') amount: string): Promise<UserResponse[]> {
    let threshold;
    try {
      threshold = parseMoney(amount);
    } catch (error) {
      if (error instanceof MoneyFormatError) throw invalidRequest(`amount ${error.message}, got "${amount}"`);
      throw error;
    }
    return (await this.users.listWithBalanceAbove(threshold)).map(UserResponse.of);
  }

  @Get('upi/:upiId')
  @ApiBearerAuth()
  @ApiOperation({ summary: "The caller's own account, looked up by UPI ID" })
  @ApiOkResponse({ type: UserAccountResponse })
  @ApiProblems(401, 403, ErrorCode.UserNotFound, 422)
  async byUpiId(@Param('upiId') upiId: string, @CurrentUser() caller: AuthenticatedUser) {
    if (!UPI_ID_PATTERN.test(upiId) || upiId.length > 100) throw new ValidationError({ upiId: UPI_ID_MESSAGE });
    const user = await this.users.findByUpiId(upiId);
    return UserAccountResponse.of(requireOwner(caller, user, `No user with UPI ID ${upiId}`));
  }

  @Get(':id')
  @ApiBearerAuth()
  @ApiOperation({ summary: "The caller's own profile" })
  @ApiOkResponse({ type: UserResponse })
  @ApiProblems(400, 401, 403, ErrorCode.UserNotFound)
  async byReferenceId(@Param('id', UuidParamPipe) id: string, @CurrentUser() caller: AuthenticatedUser) {
    const user = await this.users.findByReferenceId(id);
    return UserResponse.of(requireOwner(caller, user, `No user with reference ID ${id}`));
  }
}
