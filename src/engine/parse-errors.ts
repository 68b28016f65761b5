// An honest gate: a file the pre-filter marked as MCP code that does not parse (or could not be analysed) was checked
// by no rule, so it cannot pass. Each such `parse` problem also becomes an error finding, `parse-error`, placed at
// the syntax error when the problem names one.
import type { FileProblem, Finding } from '../model';
import { PARSE_ERROR_ID, engineRuleMetas } from '../rules/engine-rules';

const PARSE_ERROR = engineRuleMetas.find((meta) => meta.id === PARSE_ERROR_ID)!;
/** `does not parse: 3:14 ';' expected` — the position the parser reported. */
const POSITION = /^does not parse: (\d+):(\d+) /;

export function parseErrorFindings(problems: readonly FileProblem[]): Finding[] {
  return problems
    .filter((problem) => problem.kind === 'parse')
    .map((problem) => {
      const position = POSITION.exec(problem.message);
      const line = position ? Number(position[1]) : 1;
      const column = position ? Number(position[2]) : 1;
      return {
        ruleId: PARSE_ERROR_ID,
        severity: PARSE_ERROR.severity,
        file: problem.file,
        line,
        column,
        endLine: line,
        endColumn: column,
        message: `Not checked: ${problem.message}`,
        hint: PARSE_ERROR.hint,
        fix: PARSE_ERROR.fix,
      };
    });
}
