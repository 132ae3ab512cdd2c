// Owns login_attempts, login_known_addresses, revoked_tokens, user_token_revocations and role_grants:
// login, tokens and their revocation, roles. Accounts themselves are the users module's.
import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { AuthModuleOptions } from '@nestjs/passport';
import { AppConfig } from '../config/app-config';
import { UsersModule } from '../users/users.module';
import { AuthController } from './auth.controller';
import { AuthPurgeJob } from './auth-purge.job';
import { JwtAuthGuard } from './jwt-auth.guard';
import { JwtStrategy } from './jwt.strategy';
import { LoginAttemptsRepository } from './login-attempts.repository';
import { loginMetricProviders } from './login-metrics';
import { LoginRateLimiter } from './login-rate-limiter';
import { LoginService } from './login.service';
import { RevocationService } from './revocation.service';
import { RevocationsRepository } from './revocations.repository';
import { RoleGrantsRepository } from './role-grants.repository';
import { RoleGrantsService } from './role-grants.service';
import { RolesController } from './roles.controller';
import { TokenService } from './token.service';

@Module({
  imports: [
    JwtModule.registerAsync({
      global: true,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        secret: config.jwtSecret,
        signOptions: { algorithm: 'HS256' },
        verifyOptions: { algorithms: ['HS256'] },
      }),
    }),
    UsersModule,
  ],
  controllers: [AuthController, RolesController],
  providers: [
    TokenService,
    LoginService,
    LoginAttemptsRepository,
    RoleGrantsRepository,
    LoginRateLimiter,
    RevocationService,
    RevocationsRepository,
    RoleGrantsService,
    AuthPurgeJob,
    JwtStrategy,
    {
      provide: AuthModuleOptions,
      inject: [JwtStrategy],
      useFactory: (strategy: JwtStrategy): AuthModuleOptions => ({
        session: false,
        defaultStrategy: strategy.strategyName,
      }),
    },
    ...loginMetricProviders,
    { provide: APP_GUARD, useClass: JwtAuthGuard },
  ],
})
export class AuthModule {}
