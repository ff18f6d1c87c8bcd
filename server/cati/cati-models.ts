/**
 * EntityModels of the CATI management entity sets (docs/cati-api.md#blacklist table): wire name → SQL column, EDM type.
 * The blacklist model lives with the blacklist router.
 */
import type { EntityModel, PropertyDef } from '../odata/model.ts';
import { DIAL_TYPES, LIST_MODES } from './interviewers-service.ts';
import { DELIVERY_MODES, SURVEY_STATES } from './surveys-service.ts';

const int32 = (name: string, column: string, extra: Partial<PropertyDef> = {}): PropertyDef => ({ name, column, type: 'Edm.Int32', ...extra });
const int64 = (name: string, column: string, extra: Partial<PropertyDef> = {}): PropertyDef => ({ name, column, type: 'Edm.Int64', ...extra });
const str = (name: string, column: string, extra: Partial<PropertyDef> = {}): PropertyDef => ({ name, column, type: 'Edm.String', ...extra });
const time = (name: string, column: string, extra: Partial<PropertyDef> = {}): PropertyDef => ({ name, column, type: 'Edm.DateTimeOffset', ...extra });
const bool = (name: string, column: string, extra: Partial<PropertyDef> = {}): PropertyDef => ({ name, column, type: 'Edm.Boolean', ...extra });

export const callCenterModel: EntityModel = {
  typeName: 'CallCenter',
  setName: 'callcenters',
  key: ['CallCenterId'],
  from: 'call_centers',
  properties: [int32('CallCenterId', 'id', { computed: true }), str('Name', 'name'), str('TimeZone', 'time_zone', { nullable: true })],
  etagColumn: 'version',
};

export const groupModel: EntityModel = {
  typeName: 'Group',
  setName: 'groups',
  key: ['GroupId'],
  from: 'groups',
  properties: [
    int32('GroupId', 'id', { computed: true }),
    str('Name', 'name'),
    str('Description', 'description', { nullable: true }),
    { name: 'ParentGroups', type: 'Edm.Int32', collection: true, virtual: true },
  ],
  etagColumn: 'version',
};

const interviewerProperties: PropertyDef[] = [
  int32('InterviewerId', 'id', { computed: true }),
  str('Name', 'name'),
  str('DisplayName', 'display_name', { nullable: true }),
  str('Description', 'description', { nullable: true }),
  int32('CallCenterId', 'call_center_id'),
  str('Location', 'location', { nullable: true }),
  str('DialType', 'dial_type', { enumName: 'DialType', enumValues: DIAL_TYPES }),
  str('AssignmentsListMode', 'assignments_list_mode', { enumName: 'AssignmentsListMode', enumValues: LIST_MODES }),
  str('AutomaticSurveyId', 'automatic_survey_id', { nullable: true }),
  bool('IsLocked', 'is_locked'),
  time('LockedDate', 'locked_date', { nullable: true, computed: true }),
  time('PwdSetDate', 'pwd_set_date', { nullable: true, computed: true }),
  ...[1, 2, 3, 4, 5].map((n) => str(`Attribute${n}`, `attribute${n}`, { nullable: true })),
];

/** `/interviewers` (read). */
export const interviewerModel: EntityModel = {
  typeName: 'Interviewer',
  setName: 'interviewers',
  key: ['InterviewerId'],
  from: 'interviewers',
  properties: interviewerProperties,
  etagColumn: 'version',
};

/**
 * `/interviewerproperties` (write-only): its own type, the interviewer's writable fields plus `Password`
 * and `ParentGroups`, which are accepted on writes and never returned (answers are Interviewer entities).
 */
export const interviewerPropertiesModel: EntityModel = {
  typeName: 'InterviewerProperties',
  setName: 'interviewerproperties',
  key: ['InterviewerId'],
  from: 'interviewers',
  properties: [
    ...interviewerProperties,
    { name: 'Password', type: 'Edm.String', virtual: true, writeOnly: true, nullable: true },
    { name: 'ParentGroups', type: 'Edm.Int32', collection: true, virtual: true, writeOnly: true },
  ],
  etagColumn: 'version',
};

export const surveyModel: EntityModel = {
  typeName: 'Survey',
  setName: 'surveys',
  key: ['SurveyId'],
  from: 'surveys',
  properties: [
    str('SurveyId', 'id'),
    str('SurveyName', 'name'),
    int32('SampleSize', 'sample_size'),
    str('State', 'state', { enumName: 'SurveyState', enumValues: SURVEY_STATES }),
    { name: 'Variables', type: 'Edm.String', collection: true, virtual: true, complexType: 'SurveyVariable' },
  ],
  etagColumn: 'version',
};

/** Supervisors never see SoftDeleted surveys (they answer 404). */
export const ACTIVE_SURVEYS = { where: "state <> 'SoftDeleted'", params: [] as unknown[] };

/**
 * Version of a call or break: 1 while open (Duration null), 2 once closed. A record is closed at most once
 * and never changes otherwise, so this is exact without a version column.
 */
const OPEN_OR_CLOSED = 'CASE WHEN duration IS NULL THEN 1 ELSE 2 END';

export const breakHistoryModel: EntityModel = {
  typeName: 'BreakHistory',
  setName: 'breakhistory',
  key: ['Id'],
  from: 'breaks',
  properties: [
    int64('Id', 'id', { computed: true }),
    time('Time', 'time'),
    str('SurveyId', 'survey_id', { nullable: true }),
    int32('Duration', 'duration', { nullable: true }),
    int32('InterviewerId', 'interviewer_id'),
    int32('CallCenterId', 'call_center_id'),
    int32('BreakTypeId', 'break_type_id'),
    str('BreakTypeName', 'break_type_name'),
    bool('IsPaid', 'is_paid', { nullable: true }),
  ],
  etagColumn: OPEN_OR_CLOSED,
};

const callFields: PropertyDef[] = [
  int64('Id', 'id', { computed: true }),
  time('Time', 'time'),
  str('SurveyId', 'survey_id'),
  int32('InterviewId', 'interview_id', { nullable: true }),
  int32('InterviewerId', 'interviewer_id', { nullable: true }),
  str('TelephoneNumber', 'telephone_number'),
  int32('ExtendedStatus', 'extended_status', { nullable: true }),
  int32('Duration', 'duration', { nullable: true }),
  int32('WaitingTime', 'waiting_time'),
  int32('CallCenterId', 'call_center_id'),
];

export const callHistoryModel: EntityModel = {
  typeName: 'CallHistory',
  setName: 'callhistory',
  key: ['Id'],
  from: 'calls',
  properties: callFields,
  etagColumn: OPEN_OR_CLOSED,
  keyRangesByTime: { property: 'Time', table: 'call_id_ranges', bucketMs: 3_600_000, unindexedFrom: 'calls NOT INDEXED' },
};

export const sessionHistoryModel: EntityModel = {
  typeName: 'InterviewerSessionHistory',
  setName: 'interviewersessionhistory',
  key: ['SessionId'],
  from: 'sessions',
  properties: [
    int64('SessionId', 'id', { computed: true }),
    int32('CallCenterId', 'call_center_id'),
    int32('InterviewerId', 'interviewer_id'),
    time('LoginTime', 'login_time'),
    time('LogoutTime', 'logout_time', { nullable: true }),
  ],
  etagColumn: 'version',
};

export const surveyAssignmentModel: EntityModel = {
  typeName: 'SurveyAssignment',
  setName: null,
  key: [],
  properties: [
    str('SurveyId', 'SurveyId'),
    str('AssignmentType', 'AssignmentType', { enumName: 'AssignmentType', enumValues: ['Implicit', 'Explicit', 'ImplicitToSurveyCalls'] }),
    int32('AssignedCallsCount', 'AssignedCallsCount'),
  ],
};

export const resourceAssignmentModel: EntityModel = {
  typeName: 'ResourceAssignment',
  setName: null,
  key: [],
  properties: [int32('ResourceId', 'ResourceId'), str('Name', 'Name'), bool('IsGroup', 'IsGroup'), int32('AssignedCallsCount', 'AssignedCallsCount')],
};

export const basicPropertiesModel: EntityModel = {
  typeName: 'SurveyBasicProperties',
  setName: null,
  key: [],
  properties: [
    str('SurveyId', 'SurveyId'),
    str('ExtendedStatusGroup', 'ExtendedStatusGroup', { nullable: true }),
    str('Scheduling', 'Scheduling', { nullable: true }),
    str('CallDeliveryMode', 'CallDeliveryMode', { enumName: 'CallDeliveryMode', enumValues: DELIVERY_MODES }),
    bool('CallGroups', 'CallGroups'),
  ],
};

/** Complex types used by virtual collection properties. */
export const surveyVariableType: EntityModel = {
  typeName: 'SurveyVariable',
  setName: null,
  key: [],
  properties: [str('Name', 'Name'), bool('AvailableAsCatiFilter', 'AvailableAsCatiFilter')],
};

export const variableValueType: EntityModel = {
  typeName: 'VariableValue',
  setName: null,
  key: [],
  properties: [str('Name', 'Name'), str('Value', 'Value', { nullable: true })],
};
