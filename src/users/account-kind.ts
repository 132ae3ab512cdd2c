/** users.kind: a user's account, or one of the treasury rows that issue and absorb money. */
export enum AccountKind {
  User = 'USER',
  Treasury = 'TREASURY',
}
