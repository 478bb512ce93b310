// `npm run check:architecture`, part of `npm test`: the layering rules (.dependency-cruiser.cjs)
// and "every exported function says what it is for" (a JSDoc comment), over worker/ and widget/.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { ROOT } from './lib.mjs';

let failed = false;

const cruise = spawnSync(
  process.execPath,
  [
    join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'),
    'worker',
    'widget',
    'drizzle',
    '--config',
    '.dependency-cruiser.cjs',
  ],
  {
    cwd: ROOT,
    encoding: 'utf8',
  },
);
process.stdout.write(`${cruise.stdout.trim()}\n`);
if (cruise.status !== 0) {
  process.stderr.write(cruise.stderr);
  failed = true;
}

function sourceFiles(directory, pattern = /\.tsx?$/) {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return sourceFiles(path, pattern);
    return pattern.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const isExported = (node) => (ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Export) !== 0;
const hasJsDoc = (node) => ts.getJSDocCommentsAndTags(node).length > 0;

const undocumented = [];
for (const file of [...sourceFiles(join(ROOT, 'worker')), ...sourceFiles(join(ROOT, 'widget'))]) {
  const source = ts.createSourceFile(
    file,
    readFileSync(file, 'utf8'),
    ts.ScriptTarget.Latest,
    true,
    file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const where = (node) => `${relative(ROOT, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  for (const statement of source.statements) {
    if (ts.isFunctionDeclaration(statement) && isExported(statement) && !hasJsDoc(statement))
      undocumented.push(`${where(statement)} ${statement.name?.text}`);
    if (ts.isVariableStatement(statement) && isExported(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        const value = declaration.initializer;
        const isFunction = value && (ts.isArrowFunction(value) || ts.isFunctionExpression(value));
        if (isFunction && !hasJsDoc(statement))
          undocumented.push(`${where(statement)} ${declaration.name.getText(source)}`);
      }
    }
    if (ts.isClassDeclaration(statement) && isExported(statement)) {
      if (!hasJsDoc(statement)) undocumented.push(`${where(statement)} class ${statement.name?.text}`);
      for (const member of statement.members) {
        const isPublicMethod =
          ts.isMethodDeclaration(member) &&
          !(ts.getCombinedModifierFlags(member) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected));
        if (isPublicMethod && !hasJsDoc(member))
          undocumented.push(`${where(member)} ${statement.name?.text}.${member.name.getText(source)}`);
      }
    }
  }
}
if (undocumented.length > 0) {
  console.error(`Exported functions without a JSDoc comment (${undocumented.length}):\n  ${undocumented.join('\n  ')}`);
  failed = true;
} else {
  console.log('✔ every exported function has a JSDoc comment');
}
// Lines of 120 characters at most in every source file (the formatter keeps code there; strings
// and comments are wrapped by hand).
const LINE_LIMIT = 120;
const sourceRoots = ['worker', 'widget', 'scripts', 'test', 'drizzle'].map((folder) => join(ROOT, folder));
const longLines = [];
for (const file of sourceRoots.flatMap((root) => sourceFiles(root, /\.(tsx?|mjs|cjs)$/))) {
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, index) => {
      if (line.length > LINE_LIMIT) longLines.push(`${relative(ROOT, file)}:${index + 1} (${line.length})`);
    });
}
if (longLines.length > 0) {
  console.error(`Lines over ${LINE_LIMIT} characters (${longLines.length}):\n  ${longLines.join('\n  ')}`);
  failed = true;
} else {
  console.log(`✔ no line over ${LINE_LIMIT} characters`);
}
process.exit(failed ? 1 : 0);
