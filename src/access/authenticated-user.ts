/** Who the bearer token says the caller is. */
export interface AuthenticatedUser {
  upiId: string;
  referenceId: string;
  roles: string[];
  /** The presented token itself (what logout revokes); set by the auth guard. */
  token?: { id: string; expiresAtMs: number };
}

export const ROLE_USER = 'ROLE_USER';
export const ROLE_ADMIN = 'ROLE_ADMIN';
