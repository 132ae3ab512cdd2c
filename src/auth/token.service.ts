import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { AppConfig } from '../config/app-config';
import { RoleGrantsService } from './role-grants.service';
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
    private readonly grants: RoleGrantsService,
  ) {}

  /** The roles claim is informative for clients: every request checks the current grants instead. */
  async issue(user: { upiId: string; referenceId: string }): Promise<IssuedToken> {
    const expiresIn = Math.floor(this.config.jwtExpirationMs / 1000);
    const roles = [...(await this.grants.rolesOf(user))];
    const accessToken = this.jwt.sign(
      { referenceId: user.referenceId, roles },
      { subject: user.upiId, expiresIn, algorithm: 'HS256', jwtid: newTokenId() },
    );
    return { accessToken, tokenType: 'Bearer', expiresIn };
  }
}
