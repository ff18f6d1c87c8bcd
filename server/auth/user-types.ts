/**
 * The wire type of a user account (docs/people.md#users), free of Node imports so the renderer can share it (type-only).
 */
import type { Role } from './roles.ts';

/** A user as the API answers it (never the password or its hash). */
export interface UserInfo {
  UserId: number;
  Name: string;
  DisplayName: string;
  Role: Role;
  Locked: boolean;
  CreatedAt: string;
  LastLoginAt: string | null;
}
