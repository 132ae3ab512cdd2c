/** Who the bearer token says the caller is. */
export interface AuthenticatedUser {
  upiId: string;
  referenceId: string;
  roles: string[];
}

export const ROLE_USER = 'ROLE_USER';
export const ROLE_ADMIN = 'ROLE_ADMIN';
