import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems } from '../docs/api-docs';
import { unauthorized } from '../common/errors/api-error';
import { UsersService } from '../users/users.service';
import { Public } from '../access/access.decorators';
import { LoginRequest, LoginResponse } from './login.dto';
import { TokenService } from './token.service';

@ApiTags('Authentication')
@Controller('api/v1/auth')
export class AuthController {
  constructor(
    private readonly users: UsersService,
    private readonly tokens: TokenService,
  ) {}

  @Public()
  @Post('login')
  @HttpCode(200)
  @ApiOperation({ summary: 'Exchange a registered UPI ID for a bearer token' })
  @ApiOkResponse({ type: LoginResponse })
  @ApiProblems(400, 401, 422)
  async login(@Body() body: LoginRequest): Promise<LoginResponse> {
    const user = await this.users.findByUpiId(body.upiId);
    if (!user) throw unauthorized('Unknown UPI ID');
    return { ...this.tokens.issue(user), upiId: user.upiId, referenceId: user.referenceId };
  }
}
