import type { Node, SourceFile } from 'ts-morph';
import type { FixKind, Severity } from '../model';
import type { FileFacts } from '../analysis/file-facts';

/** What every rule declares about itself; the reporters, the docs and SARIF are generated from it. */
export interface RuleMeta {
  /** Stable public id (kebab-case). Never rename: CI configs and suppressions refer to it. */
  id: string;
  /** One line: what the rule finds. */
  title: string;
  severity: Severity;
  /** How findings of this rule are fixed by `apply` when the shape is recognised. */
  fix: FixKind;
  /** One paragraph: what, why, and the spec or SDK source. */
  doc: string;
  /** One short sentence: what to do. */
  hint: string;
  /** Where the requirement comes from (spec section, SDK file). */
  sources: string[];
}

export interface ReportOptions {
  hint?: string;
  fix?: FixKind;
  /** Facts for the fixer, carried on the finding. */
  data?: Record<string, unknown>;
  related?: Array<{ node: Node; message: string }>;
}

export interface RuleContext {
  sourceFile: SourceFile;
  /** Semantic facts about the file, computed once and shared by every rule. */
  facts: FileFacts;
  report(node: Node, message: string, options?: ReportOptions): void;
}

export interface Rule {
  meta: RuleMeta;
  check(context: RuleContext): void;
}
