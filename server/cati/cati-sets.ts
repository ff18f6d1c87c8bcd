import type { AppContext } from '../context.ts';
import type { ODataService } from '../odata/service.ts';
import { callCentersSet } from './call-centers-set.ts';
import {
  basicPropertiesModel, resourceAssignmentModel, surveyAssignmentModel, surveyVariableType, variableValueType,
} from './cati-models.ts';
import { breakTypesSet, extendedStatusesSet, floorSet } from './floor-sets.ts';
import { groupsSet } from './groups-set.ts';
import { historySets, historyWithVariablesSet } from './history-sets.ts';
import { interviewerPropertiesSet, interviewersSet } from './interviewers-set.ts';
import { surveysSet } from './surveys-set.ts';

/** Registers the CATI management entity sets (everything but the blacklist) and the types they return. */
export function registerCatiSets(service: ODataService, ctx: AppContext): void {
  for (const t of [surveyAssignmentModel, resourceAssignmentModel, basicPropertiesModel, surveyVariableType, variableValueType]) {
    service.registerType(t);
  }
  service.registerSet(callCentersSet(ctx));
  service.registerSet(groupsSet(ctx));
  service.registerSet(interviewersSet(ctx));
  service.registerSet(interviewerPropertiesSet(ctx));
  service.registerSet(surveysSet(ctx));
  for (const set of historySets(ctx)) service.registerSet(set);
  service.registerSet(historyWithVariablesSet(ctx));
  service.registerSet(breakTypesSet(ctx));
  service.registerSet(extendedStatusesSet(ctx));
  service.registerSet(floorSet(ctx));
}
