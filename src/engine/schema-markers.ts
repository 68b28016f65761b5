// The official codemod marks every `registerTool` whose `inputSchema` (or `outputSchema`) it cannot see is a schema
// object: "Could not verify `inputSchema` is a schema object … no change is needed if it already is one". It reads
// syntax only; the analysis follows names across files. Where the value passed is built by zod (`z.object(…)`, held in
// a variable or an object property), the answer is known and the marker goes, with its diagnostic.
import { Node, Project, SyntaxKind, ts, type SourceFile } from 'ts-morph';
import type { SurfaceDiagnostic } from './sdk-v2-surface';
import { rootOf, unwrapExpression } from '../analysis/endpoints/spans';

const MARKER = /^[ \t]*\/\*\s*@mcp-codemod-error Could not verify `(inputSchema|outputSchema)` is a schema object\.[^\n]*\*\/[ \t]*\n/gm;

/** The migrated text without the markers the types answer, and the diagnostics that remain for it. */
export function withoutAnsweredSchemaMarkers(
  text: string,
  absPath: string,
  diagnostics: SurfaceDiagnostic[],
): { text: string; diagnostics: SurfaceDiagnostic[] } {
  if (!text.includes('Could not verify `')) return { text, diagnostics };
  const original = originalFile(absPath);
  if (!original) return { text, diagnostics };
  const answered: boolean[] = [];
  const cleaned = text.replace(MARKER, (marker, property: string, offset: number) => {
    const value = valueAfter(text.slice(offset + marker.length), property);
    const schema = !!value && isSchemaValue(original, property, value);
    answered.push(schema);
    return schema ? '' : marker;
  });
  // The codemod reports one diagnostic per marker, in the same order.
  let index = 0;
  const kept = diagnostics.filter(
    (d) => !/^Could not verify `(?:input|output)Schema` is a schema object/.test(d.message) || !answered[index++],
  );
  return { text: cleaned, diagnostics: kept };
}

/**
 * The file as it is on disk, in a project that reads the files it imports on demand (the analysis holds only the
 * files that mention MCP; the schemas usually live in the tools' own files).
 */
function originalFile(absPath: string): SourceFile | undefined {
  const project = new Project({
    skipAddingFilesFromTsConfig: true,
    compilerOptions: {
      allowJs: true,
      noLib: true,
      types: [],
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      module: ts.ModuleKind.ESNext,
    },
  });
  try {
    return project.addSourceFileAtPath(absPath);
  } catch {
    return undefined;
  }
}

/** The expression the next `inputSchema:` property holds, as written (`getFigmaDataTool.parametersSchema`). */
function valueAfter(rest: string, property: string): string | undefined {
  const match = new RegExp(`\\b${property}\\s*:\\s*([\\w$.]+)\\s*[,}\\n]`).exec(rest.slice(0, 2000));
  return match?.[1];
}

/** Every `property: value` in the original file is built by zod (followed through variables and object properties). */
function isSchemaValue(file: SourceFile, property: string, value: string): boolean {
  const values = file
    .getDescendantsOfKind(SyntaxKind.PropertyAssignment)
    .filter((p) => p.getName() === property && p.getInitializer()?.getText() === value)
    .map((p) => p.getInitializerOrThrow());
  return values.length > 0 && values.every((node) => builtByZod(node, 0));
}

/** `z.object({…})`, `Base.extend({…})` with `Base = z.object(…)`, or a name or property that holds one. */
function builtByZod(expression: Node, depth: number): boolean {
  if (depth > 6) return false;
  const node = unwrapExpression(expression);
  if (Node.isCallExpression(node)) {
    const root = rootOf(node.getExpression());
    return Node.isIdentifier(root) && (importedFromZod(root) || builtByZod(root, depth + 1));
  }
  if (!Node.isIdentifier(node) && !Node.isPropertyAccessExpression(node)) return false;
  const named = Node.isPropertyAccessExpression(node) ? node.getNameNode().getSymbol() : node.getSymbol();
  const symbol = named?.isAlias() ? named.getAliasedSymbol() : named;
  const declaration = symbol?.getDeclarations()[0];
  if (Node.isVariableDeclaration(declaration) || Node.isPropertyAssignment(declaration)) {
    const init = declaration.getInitializer();
    return !!init && builtByZod(init, depth + 1);
  }
  if (Node.isShorthandPropertyAssignment(declaration)) {
    const value = declaration.getValueSymbol()?.getDeclarations()[0];
    const init = Node.isVariableDeclaration(value) ? value.getInitializer() : undefined;
    return !!init && builtByZod(init, depth + 1);
  }
  return false;
}

function importedFromZod(identifier: Node): boolean {
  const declaration = identifier.getSymbol()?.getDeclarations()[0];
  const importDeclaration = declaration?.getFirstAncestorByKind(SyntaxKind.ImportDeclaration);
  return !!importDeclaration && /^zod(?:\/|$)/.test(importDeclaration.getModuleSpecifierValue());
}
