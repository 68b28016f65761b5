// The v2 fix-ups, in the order they run: after the official v1→v2 codemod, on the 2026-07-28 target. Each removes one
// type error (or silent breakage) the codemod leaves; `zod-4` ones run only in packages whose zod the migration moved
// from 3 to 4. Each is a jscodeshift transform (it also runs under `jscodeshift -t`), with fixtures in fixtures/<id>/.
import type { API, FileInfo } from 'jscodeshift';
import type { TransformOptions } from '../lib/context';
import zodRecordKey, * as zodRecordKeyMeta from './zod-record-key';
import zodToJsonSchema, * as zodToJsonSchemaMeta from './zod-to-json-schema';
import zodErrorIssues, * as zodErrorIssuesMeta from './zod-error-issues';
import zodErrorParams, * as zodErrorParamsMeta from './zod-error-params';
import legacyTransportTypes, * as legacyTransportTypesMeta from './legacy-transport-types';
import taskStoreOption, * as taskStoreOptionMeta from './task-store-option';
import toolListType, * as toolListTypeMeta from './tool-list-type';
import listCapability, * as listCapabilityMeta from './list-capability';
import contextDestructuring, * as contextDestructuringMeta from './context-destructuring';
import contextFields, * as contextFieldsMeta from './context-fields';
import untypedRegistrations, * as untypedRegistrationsMeta from './untyped-registrations';
import handlerContextReads, * as handlerContextReadsMeta from './handler-context-reads';
import resourceCalls, * as resourceCallsMeta from './resource-calls';
import sdkImportTypes, * as sdkImportTypesMeta from './sdk-import-types';

export interface FixupModule {
  id: string;
  /** `v2`: every file the v2 move touched; `zod-4`: files of a package whose zod moved from 3 to 4. */
  when: 'v2' | 'zod-4';
  /** A cheap text test: the transform can only change a file where it holds. */
  mayApply(text: string): boolean;
  run(file: FileInfo, api: API, options: TransformOptions): string | undefined | null;
}

export const fixups: readonly FixupModule[] = [
  { id: legacyTransportTypesMeta.id, when: 'v2', mayApply: legacyTransportTypesMeta.mayApply, run: legacyTransportTypes },
  { id: taskStoreOptionMeta.id, when: 'v2', mayApply: taskStoreOptionMeta.mayApply, run: taskStoreOption },
  { id: toolListTypeMeta.id, when: 'v2', mayApply: toolListTypeMeta.mayApply, run: toolListType },
  { id: listCapabilityMeta.id, when: 'v2', mayApply: listCapabilityMeta.mayApply, run: listCapability },
  { id: contextDestructuringMeta.id, when: 'v2', mayApply: contextDestructuringMeta.mayApply, run: contextDestructuring },
  { id: contextFieldsMeta.id, when: 'v2', mayApply: contextFieldsMeta.mayApply, run: contextFields },
  { id: untypedRegistrationsMeta.id, when: 'v2', mayApply: untypedRegistrationsMeta.mayApply, run: untypedRegistrations },
  { id: handlerContextReadsMeta.id, when: 'v2', mayApply: handlerContextReadsMeta.mayApply, run: handlerContextReads },
  { id: resourceCallsMeta.id, when: 'v2', mayApply: resourceCallsMeta.mayApply, run: resourceCalls },
  { id: sdkImportTypesMeta.id, when: 'v2', mayApply: sdkImportTypesMeta.mayApply, run: sdkImportTypes },
  { id: zodRecordKeyMeta.id, when: 'zod-4', mayApply: zodRecordKeyMeta.mayApply, run: zodRecordKey },
  { id: zodToJsonSchemaMeta.id, when: 'zod-4', mayApply: zodToJsonSchemaMeta.mayApply, run: zodToJsonSchema },
  { id: zodErrorIssuesMeta.id, when: 'zod-4', mayApply: zodErrorIssuesMeta.mayApply, run: zodErrorIssues },
  { id: zodErrorParamsMeta.id, when: 'zod-4', mayApply: zodErrorParamsMeta.mayApply, run: zodErrorParams },
];
