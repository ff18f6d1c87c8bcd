/**
 * The wire type of a user account (CONTRACT §15), free of Node imports so the renderer can share it (type-only).
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
  /** The person's language for the screens (`en`, `nl`, `de`), or null: the browser's or the OS's. */
  Language: 'en' | 'nl' | 'de' | null;
}
