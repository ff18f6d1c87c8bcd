/**
 * EntityModels of the live floor (docs/cati-api.md#floor): /cati/breaktypes, /cati/extendedstatuses and the read-only
 * /cati/floor, whose SQL source is one parameterised subquery so the OData engine's $filter, $orderby,
 * $count and paging apply to its computed columns.
 */
import { perDialect, type Dialect } from '../db/dialect.ts';
import type { EntityModel, PropertyDef } from '../odata/model.ts';

const p = (name: string, column: string, type: PropertyDef['type'], extra: Partial<PropertyDef> = {}): PropertyDef => ({ name, column, type, ...extra });

export const OUTCOME_CATEGORIES = ['Complete', 'Refusal', 'NoContact', 'Appointment', 'Ineligible', 'Other'] as const;
export type OutcomeCategory = (typeof OUTCOME_CATEGORIES)[number];

export const FLOOR_STATES = ['Waiting', 'OnCall', 'OnBreak'] as const;

export const breakTypeModel: EntityModel = {
  typeName: 'BreakType',
  setName: 'breaktypes',
  key: ['BreakTypeId'],
  from: 'break_types',
  properties: [
    p('BreakTypeId', 'id', 'Edm.Int32'),
    p('Name', 'name', 'Edm.String'),
    p('MaxMinutes', 'max_minutes', 'Edm.Int32', { nullable: true }),
    p('IsPaid', 'is_paid', 'Edm.Boolean'),
  ],
  etagColumn: 'version',
};

export const extendedStatusModel: EntityModel = {
  typeName: 'ExtendedStatus',
  setName: 'extendedstatuses',
  key: ['Code'],
  from: 'extended_statuses',
  properties: [
    p('Code', 'code', 'Edm.Int32'),
    p('Name', 'name', 'Edm.String'),
    p('Category', 'category', 'Edm.String', { enumName: 'OutcomeCategory', enumValues: OUTCOME_CATEGORIES }),
  ],
  etagColumn: 'version',
};

/**
 * One row per open session whose last activity is recent enough (docs/cati-api.md#floor "Precisely"). Parameters, in
 * order: now (epoch ms), the staleness cutoff (epoch ms), and a JSON array of `[callCenterId, todayStart,
 * todayEnd, whole]` per call centre, read once into `d` (`whole`: both ends are whole 15-minute buckets, so today's
 * counts come from the summaries of migration 015: CallsToday from `call_totals`, one row per bucket;
 * CompletesToday from `call_counts`, keyed by (interviewer, outcome, bucket), only the Complete outcomes' rows;
 * else the calls are counted). The calls and breaks of a session are its interviewer's from its LoginTime on
 * (an interviewer has at most one open session); "last" means the latest Time. The same SQL on both engines but for
 * the reading of the JSON parameter (`d.jsonRows`) and the dialect's scalar max and 0/1 flag.
 */
const floorSql = (d: Dialect) => `(WITH p AS MATERIALIZED (SELECT CAST(? AS BIGINT) AS now_ms, CAST(? AS BIGINT) AS cutoff),
  d AS MATERIALIZED (SELECT * FROM ${d.jsonRows([['center', 'int'], ['day_start', 'int'], ['day_end', 'int'], ['whole', 'int']])} AS j)
  SELECT
    x.session_id AS SessionId, x.interviewer_id AS InterviewerId, x.name AS Name, x.display_name AS DisplayName,
    x.call_center_id AS CallCenterId, x.login_time AS LoginTime,
    CASE WHEN ob.id IS NOT NULL THEN 'OnBreak' WHEN oc.id IS NOT NULL THEN 'OnCall' ELSE 'Waiting' END AS State,
    CASE WHEN ob.id IS NOT NULL THEN ob.time WHEN oc.id IS NOT NULL THEN oc.time
      ELSE ${d.greatest('x.login_time', d.greatest('COALESCE(lc.time + lc.duration * 1000, 0)', 'COALESCE(lb.time + lb.duration * 1000, 0)'))} END AS StateSince,
    ob.break_type_id AS BreakTypeId, bt.name AS BreakTypeName,
    ${d.int('ob.id IS NOT NULL AND bt.max_minutes IS NOT NULL AND p.now_ms - ob.time > bt.max_minutes * 60000')} AS BreakOverLimit,
    COALESCE(oc.survey_id, lc.survey_id) AS SurveyId,
    CASE WHEN d.whole = 1 THEN
      (SELECT COALESCE(SUM(k.n), 0) FROM call_totals k WHERE k.interviewer_id = x.interviewer_id
        AND k.bucket >= d.day_start / 900000 AND k.bucket < d.day_end / 900000)
    ELSE (SELECT COUNT(*) FROM calls c WHERE c.interviewer_id = x.interviewer_id
      AND c.time >= d.day_start AND c.time < d.day_end) END AS CallsToday,
    CASE WHEN d.whole = 1 THEN
      (SELECT COALESCE(SUM(k.n), 0) FROM call_counts k WHERE k.interviewer_id = x.interviewer_id
        AND k.extended_status IN (SELECT code FROM extended_statuses WHERE category = 'Complete')
        AND k.bucket >= d.day_start / 900000 AND k.bucket < d.day_end / 900000)
    ELSE (SELECT COUNT(*) FROM calls c WHERE c.interviewer_id = x.interviewer_id
      AND c.time >= d.day_start AND c.time < d.day_end
      AND c.extended_status IN (SELECT code FROM extended_statuses WHERE category = 'Complete')) END AS CompletesToday,
    x.is_locked AS IsLocked
  FROM p
  CROSS JOIN (SELECT s.id AS session_id, s.interviewer_id, i.name, i.display_name, s.call_center_id, s.login_time,
      COALESCE(i.is_locked, 0) AS is_locked, COALESCE(i.call_center_id, s.call_center_id) AS home_center,
      (SELECT b.id FROM breaks b WHERE b.interviewer_id = s.interviewer_id AND b.duration IS NULL AND b.time >= s.login_time
        ORDER BY b.time DESC, b.id DESC LIMIT 1) AS ob_id,
      (SELECT c.id FROM calls c WHERE c.interviewer_id = s.interviewer_id AND c.duration IS NULL AND c.time >= s.login_time
        ORDER BY c.time DESC, c.id DESC LIMIT 1) AS oc_id,
      (SELECT c.id FROM calls c WHERE c.interviewer_id = s.interviewer_id AND c.time >= s.login_time
        ORDER BY c.time DESC LIMIT 1) AS lc_id,
      (SELECT b.id FROM breaks b WHERE b.interviewer_id = s.interviewer_id AND b.time >= s.login_time
        ORDER BY b.time DESC, b.id DESC LIMIT 1) AS lb_id
    FROM sessions s LEFT JOIN interviewers i ON i.id = s.interviewer_id
    WHERE s.logout_time IS NULL) x
  LEFT JOIN breaks ob ON ob.id = x.ob_id
  LEFT JOIN break_types bt ON bt.id = ob.break_type_id
  LEFT JOIN calls oc ON oc.id = x.oc_id
  LEFT JOIN calls lc ON lc.id = x.lc_id
  LEFT JOIN breaks lb ON lb.id = x.lb_id
  LEFT JOIN d ON d.center = x.home_center
  WHERE x.login_time >= p.cutoff
    OR EXISTS (SELECT 1 FROM calls c WHERE c.interviewer_id = x.interviewer_id AND c.time >= p.cutoff)
    OR EXISTS (SELECT 1 FROM breaks b WHERE b.interviewer_id = x.interviewer_id AND b.time >= p.cutoff)
    OR EXISTS (SELECT 1 FROM calls c WHERE c.interviewer_id = x.interviewer_id AND c.time >= x.login_time AND c.time < p.cutoff
      AND c.time + c.duration * 1000 >= p.cutoff)
    OR EXISTS (SELECT 1 FROM breaks b WHERE b.interviewer_id = x.interviewer_id AND b.time >= x.login_time AND b.time < p.cutoff
      AND b.time + b.duration * 1000 >= p.cutoff)
) f`;

const f = (name: string, type: PropertyDef['type'], extra: Partial<PropertyDef> = {}) => p(name, `f.${name}`, type, extra);

/** The read-only /cati/floor for the store's dialect (`floorModel(ctx.store.dialect)`; one model per dialect). */
export const floorModel = perDialect((d): EntityModel => ({ ...floorShape, from: floorSql(d) }));

const floorShape: EntityModel = {
  typeName: 'FloorRow',
  setName: 'floor',
  key: ['SessionId'],
  properties: [
    f('SessionId', 'Edm.Int64'),
    f('InterviewerId', 'Edm.Int32'),
    f('Name', 'Edm.String', { nullable: true }),
    f('DisplayName', 'Edm.String', { nullable: true }),
    f('CallCenterId', 'Edm.Int32'),
    f('LoginTime', 'Edm.DateTimeOffset'),
    f('State', 'Edm.String', { enumName: 'FloorState', enumValues: FLOOR_STATES }),
    f('StateSince', 'Edm.DateTimeOffset'),
    f('BreakTypeId', 'Edm.Int32', { nullable: true }),
    f('BreakTypeName', 'Edm.String', { nullable: true }),
    f('BreakOverLimit', 'Edm.Boolean'),
    f('SurveyId', 'Edm.String', { nullable: true }),
    f('CallsToday', 'Edm.Int32'),
    f('CompletesToday', 'Edm.Int32'),
    f('IsLocked', 'Edm.Boolean'),
  ],
};
