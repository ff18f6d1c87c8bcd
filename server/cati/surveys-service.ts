import type { Queryable, Store } from '../db/store.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { bodyObject, optBool, optEnum, optInt, optString, rejectUnknown, reqString, SURVEY_ID } from './body-fields.ts';
import { checkVersion } from './etag-check.ts';

export const SURVEY_STATES = ['Closed', 'Open', 'SoftDeleted'] as const;
export const DELIVERY_MODES = ['InOrder', 'Random'] as const;

export interface BasicProperties {
  SurveyId: string;
  ExtendedStatusGroup: string | null;
  Scheduling: string | null;
  CallDeliveryMode: (typeof DELIVERY_MODES)[number];
  CallGroups: boolean;
}

/** 404 unless the survey exists and is not SoftDeleted (what every assignment operation needs). */
export async function assertActiveSurvey(db: Queryable, surveyId: string): Promise<void> {
  if (!SURVEY_ID.test(surveyId)) throw badRequest(`surveyId '${surveyId}' must be 'p' followed by digits`);
  const state = await db.value<string>('SELECT state FROM surveys WHERE id = ?', [surveyId]);
  if (state === undefined || state === 'SoftDeleted') throw notFound(`Survey '${surveyId}' does not exist`);
}

/** `Controller.GetBasicProperties()` of a survey. */
export async function getBasicProperties(db: Queryable, surveyId: string): Promise<BasicProperties> {
  await assertActiveSurvey(db, surveyId);
  const r = (await db.get<{
    id: string; extended_status_group: string | null; scheduling: string | null; call_delivery_mode: BasicProperties['CallDeliveryMode']; call_groups: number;
  }>('SELECT id, extended_status_group, scheduling, call_delivery_mode, call_groups FROM surveys WHERE id = ?', [surveyId]))!;
  return { SurveyId: r.id, ExtendedStatusGroup: r.extended_status_group, Scheduling: r.scheduling, CallDeliveryMode: r.call_delivery_mode, CallGroups: r.call_groups === 1 };
}

/** Current row version of a survey (SoftDeleted included: the dialer may restore it), or 404. */
export async function surveyVersion(db: Queryable, surveyId: string): Promise<number> {
  const v = await db.value<number>('SELECT version FROM surveys WHERE id = ?', [surveyId]);
  if (v === undefined) throw notFound(`Survey '${surveyId}' does not exist`);
  return v;
}

interface SurveyInput {
  values: Record<string, string | number | null>;
  variables?: { name: string; filter: boolean }[];
}

function readInput(body: unknown, creating: boolean): SurveyInput {
  const b = bodyObject(body, 'a Survey {SurveyId, SurveyName, SampleSize, State, BasicProperties, Variables}');
  rejectUnknown(b, ['SurveyId', 'SurveyName', 'SampleSize', 'State', 'BasicProperties', 'Variables']);
  const v: Record<string, string | number | null | undefined> = {};
  if (creating || b.SurveyName !== undefined) v.name = reqString(b, 'SurveyName', { max: 255 });
  v.sample_size = optInt(b, 'SampleSize', { min: 0 });
  v.state = optEnum(b, 'State', SURVEY_STATES);
  if (b.BasicProperties !== undefined) {
    const p = bodyObject(b.BasicProperties, 'BasicProperties {ExtendedStatusGroup, Scheduling, CallDeliveryMode, CallGroups}');
    const pre = 'BasicProperties.';
    rejectUnknown(p, ['SurveyId', 'ExtendedStatusGroup', 'Scheduling', 'CallDeliveryMode', 'CallGroups'], pre);
    v.extended_status_group = optString(p, 'ExtendedStatusGroup', { max: 255, nullable: true }, pre);
    v.scheduling = optString(p, 'Scheduling', { max: 255, nullable: true }, pre);
    v.call_delivery_mode = optEnum(p, 'CallDeliveryMode', DELIVERY_MODES, pre);
    const groups = optBool(p, 'CallGroups', {}, pre);
    v.call_groups = groups === undefined || groups === null ? undefined : groups ? 1 : 0;
  }
  let variables: SurveyInput['variables'];
  if (b.Variables !== undefined) {
    if (!Array.isArray(b.Variables)) throw badRequest('Variables must be an array of {Name, AvailableAsCatiFilter}');
    const seen = new Set<string>();
    variables = b.Variables.map((x, i) => {
      const pre = `Variables[${i}].`;
      const o = bodyObject(x, `${pre} {Name, AvailableAsCatiFilter}`);
      rejectUnknown(o, ['Name', 'AvailableAsCatiFilter'], pre);
      const name = reqString(o, 'Name', { max: 255 }, pre);
      if (seen.has(name)) throw badRequest(`${pre}Name '${name}' is listed twice`);
      seen.add(name);
      return { name, filter: optBool(o, 'AvailableAsCatiFilter', {}, pre) ?? false };
    });
  }
  const values = Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined)) as Record<string, string | number | null>;
  return { values, variables };
}

async function setVariables(db: Queryable, surveyId: string, variables: { name: string; filter: boolean }[]): Promise<void> {
  await db.run('DELETE FROM survey_variables WHERE survey_id = ?', [surveyId]);
  for (const v of variables) {
    await db.run('INSERT INTO survey_variables (survey_id, name, available_as_cati_filter) VALUES (?, ?, ?)', [surveyId, v.name, v.filter ? 1 : 0]);
  }
}

/** Ingest: creates a survey (SurveyId given by the interviewing system); duplicate → 409. */
export async function createSurvey(store: Store, body: unknown): Promise<string> {
  const input = readInput(body, true);
  const id = (body as Record<string, unknown>).SurveyId;
  if (typeof id !== 'string' || !SURVEY_ID.test(id)) throw badRequest(`SurveyId is required and must be 'p' followed by digits`);
  await store.transaction(async (tx) => {
    if ((await tx.value('SELECT 1 FROM surveys WHERE id = ?', [id])) !== undefined) {
      throw conflict(`Survey '${id}' already exists`, [{ code: 'ExistingId', target: 'Id', message: id }]);
    }
    const cols = Object.keys(input.values);
    await tx.run(`INSERT INTO surveys (id${cols.map((c) => `, ${c}`).join('')}) VALUES (?${cols.map(() => ', ?').join('')})`, [id, ...Object.values(input.values)]);
    await setVariables(tx, id, input.variables ?? []);
  });
  return id;
}

/** Ingest: updates the fields present; `Variables`, when sent, replaces the survey's variable list. */
export async function updateSurvey(store: Store, surveyId: string, body: unknown, ifMatch?: string): Promise<void> {
  const input = readInput(body, false);
  const bodyId = (body as Record<string, unknown>).SurveyId;
  if (bodyId !== undefined && bodyId !== surveyId) throw badRequest(`SurveyId in the body (${String(bodyId)}) does not match the key '${surveyId}'`);
  await store.transaction(async (tx) => {
    checkVersion(await surveyVersion(tx, surveyId), ifMatch);
    const sets = Object.keys(input.values).map((c) => `${c} = ?`);
    await tx.run(`UPDATE surveys SET ${[...sets, 'version = version + 1'].join(', ')} WHERE id = ?`, [...Object.values(input.values), surveyId]);
    if (input.variables) await setVariables(tx, surveyId, input.variables);
  });
}

/** Variables of a survey, in name order. */
export async function surveyVariables(db: Queryable, surveyIds: readonly string[]): Promise<Map<string, { Name: string; AvailableAsCatiFilter: boolean }[]>> {
  const out = new Map(surveyIds.map((id) => [id, [] as { Name: string; AvailableAsCatiFilter: boolean }[]]));
  const rows = await db.all<{ s: string; name: string; f: number }>(
    `SELECT survey_id s, name, available_as_cati_filter f FROM survey_variables
    WHERE survey_id IN ${db.dialect.jsonValues('text')} ORDER BY survey_id, name`,
    [JSON.stringify(surveyIds)],
  );
  for (const r of rows) out.get(r.s)?.push({ Name: r.name, AvailableAsCatiFilter: r.f === 1 });
  return out;
}
