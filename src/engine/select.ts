// Two-stage candidate selection: which of the files that pass the pre-filter are parsed, and in which groups.
//
// Candidates (strong markers, `isCandidate`) are always analysed. The other pre-filtered files matter only through
// imports, and only in two ways:
// - a file that reaches a candidate by following imports may have findings itself (it builds, wraps, routes or
//   listens for what the candidate imports), and every file such a file reaches may decide them (resolution, types,
//   re-exports): those files are analysed with the candidates;
// - every file of the import group shares the project facts (today: whether something validates Origin); a file of
//   the group that is not analysed but mentions Origin is probed on its own, and when it validates Origin, or when the
//   analysed files are linked to each other only through files left out, the whole group is analysed.
// Groups that hold no candidate are never parsed: nothing in them can produce a finding (see CANDIDATE_MARKERS).
import { ImportGraph, type GraphFile } from './import-graph';

export interface SelectableFile extends GraphFile {
  /** Has a strong marker. */
  candidate: boolean;
  /** Mentions Origin (case-insensitively): {@link MENTIONS_ORIGIN}. */
  mentionsOrigin: boolean;
}

/** One import group's share of the analysis, by index into the selectable files (ascending). */
export interface AnalysisPlan {
  /** Files to analyse together: the candidates, the files that reach them, and every file those reach. */
  files: number[];
  /** Files of the group left out that mention Origin. */
  originProbes: number[];
  /** The other files of the group left out. */
  rest: number[];
}

/** A file left out of a plan that matches this is probed: does it validate Origin? */
export const MENTIONS_ORIGIN = /origin/i;

/** The analysis plans of the groups that hold a candidate, in the order of their first file. */
export function planAnalysis(files: readonly SelectableFile[]): AnalysisPlan[] {
  const graph = new ImportGraph(files);
  const plans: AnalysisPlan[] = [];
  for (const group of graph.groups()) {
    const candidates = group.filter((index) => files[index].candidate);
    if (candidates.length === 0) continue;
    const needed = graph.closure(graph.closure(candidates, 'backward'), 'forward');
    if (needed.size === group.length || graph.groups(needed).length > 1) {
      plans.push({ files: group, originProbes: [], rest: [] });
      continue;
    }
    const plan: AnalysisPlan = { files: [...needed].sort((a, b) => a - b), originProbes: [], rest: [] };
    for (const index of group) {
      if (needed.has(index)) continue;
      (files[index].mentionsOrigin ? plan.originProbes : plan.rest).push(index);
    }
    plans.push(plan);
  }
  return plans;
}
