/**
 * The wire types of user accounts (docs/people.md#users), free of Node imports: the server and the renderer share them.
 */

/** The three roles of user accounts (docs/people.md#roles). */
export const ROLES = ['administrator', 'supervisor', 'viewer'] as const;
/** One of ROLES. */
export type Role = (typeof ROLES)[number];

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
