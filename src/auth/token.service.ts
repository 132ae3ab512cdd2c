import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { AppConfig } from '../config/app-config';
import { ROLE_ADMIN, ROLE_USER } from '../access/authenticated-user';
import { newTokenId } from './token-id';

export interface TokenClaims {
  sub: string;
  referenceId: string;
  roles: string[];
  jti: string;
  iat: number;
  exp: number;
}

export interface IssuedToken {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
}

@Injectable()
export class TokenService {
  constructor(
    private readonly jwt: JwtService,
    private readonly config: AppConfig,
  ) {}

  issue(user: { upiId: string; referenceId: string }): IssuedToken {
    const expiresIn = Math.floor(this.config.jwtExpirationMs / 1000);
    const roles = this.config.adminUpiIds.has(user.upiId.toLowerCase()) ? [ROLE_USER, ROLE_ADMIN] : [ROLE_USER];
    const accessToken = this.jwt.sign(
      { referenceId: user.referenceId, roles },
      { subject: user.upiId, expiresIn, algorithm: 'HS256', jwtid: newTokenId() },
    );
    return { accessToken, tokenType: 'Bearer', expiresIn };
  }
}
