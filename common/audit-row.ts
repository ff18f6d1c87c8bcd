/**
 * The wire type of an audit-log row (docs/audit.md#reading), shared by the server and the renderer.
 */

/** One row as the API answers it. */
export interface AuditRow {
  Id: number;
  Time: string;
  ActorKeyId: number | null;
  /** The user whose session made the change (docs/audit.md#audit), else null. */
  ActorUserId: number | null;
  Actor: string;
  Action: string;
  Entity: string;
  EntityId: string | null;
  Changes: Record<string, unknown>;
}
