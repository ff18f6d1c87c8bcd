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
  /** The name of what `Entity`/`EntityId` points at (an interviewer, group, survey, call centre or person), else null. */
  EntityName: string | null;
  /** The names of the ids inside `Changes`, by kind (`groups`, `interviewers`, `surveys`, `callcenters`) and id. */
  ChangeNames: ChangeNames;
}

/** The kinds of what an audit row names. */
export type NamedKind = 'groups' | 'interviewers' | 'surveys' | 'callcenters' | 'users';

/** `ChangeNames`: kind → id (as text) → name. */
export type ChangeNames = Partial<Record<NamedKind, Record<string, string>>>;

/** The fields of `Changes` that hold ids, and of what (docs/audit.md#names): the server names them, the screen shows the names. */
export const AUDIT_ID_FIELDS: Readonly<Record<string, NamedKind>> = {
  ParentGroups: 'groups',
  GroupId: 'groups',
  Groups: 'groups',
  Members: 'interviewers',
  InterviewerId: 'interviewers',
  SurveyId: 'surveys',
  CallCenterId: 'callcenters',
};
