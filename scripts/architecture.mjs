// The architecture's rules as functions over a source tree, so that `npm run check:architecture`
// runs them on this repository and test/unit/architecture.test.ts runs each on a tree built to
// break it (every rule is shown to fire).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { ROOT } from './lib.mjs';

/** The source files under `directory` whose names match `pattern` (no declarations). */
export function sourceFiles(directory, pattern = /\.tsx?$/) {
  if (!existsSync(directory)) return [];
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return sourceFiles(path, pattern);
    return pattern.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * The dependency rules of .dependency-cruiser.cjs over `root`'s worker/, widget/ and drizzle/:
 * the violations (rule and edge) and every module with its dependencies (for moduleCycles).
 */
export function cruise(root) {
  const folders = ['worker', 'widget', 'drizzle'].filter((folder) => existsSync(join(root, folder)));
  const result = spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'),
      ...folders,
      '--config',
      join(ROOT, '.dependency-cruiser.cjs'),
      '--output-type',
      'json',
    ],
    { cwd: root, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  if (!result.stdout) throw new Error(`dependency-cruiser failed: ${result.stderr}`);
  const output = JSON.parse(result.stdout);
  return {
    violations: output.summary.violations.map((violation) => ({
      rule: violation.rule.name,
      from: violation.from,
      to: violation.to,
    })),
    modules: output.modules,
  };
}

/**
 * The module a file belongs to, as the architecture sees it: `platform/<module>`, a top-level
 * folder of worker/, a top-level file of worker/ (`vocabulary`, `env`), or `drizzle` (the tables).
 */
function folderOf(path) {
  const platform = /^worker\/platform\/([^/.]+)\//.exec(path);
  if (platform) return `platform/${platform[1]}`;
  const top = /^worker\/([^/.]+)\//.exec(path);
  if (top) return top[1];
  const file = /^worker\/([^/]+)\.tsx?$/.exec(path);
  if (file) return file[1];
  return /^drizzle\//.test(path) ? 'drizzle' : null;
}

/**
 * Cycles between module folders (strongly connected components of more than one folder), which a
 * file-level check misses: a/x → b/y → a/z is a cycle between a and b with no file in a cycle.
 */
export function moduleCycles(modules) {
  const edges = new Map();
  for (const module of modules) {
    const from = folderOf(module.source);
    if (!from) continue;
    for (const dependency of module.dependencies) {
      const to = folderOf(dependency.resolved);
      if (!to || to === from) continue;
      if (!edges.has(from)) edges.set(from, new Set());
      edges.get(from).add(to);
    }
  }
  // Tarjan's strongly connected components.
  let index = 0;
  const indices = new Map();
  const lowlinks = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  const visit = (node) => {
    indices.set(node, index);
    lowlinks.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        lowlinks.set(node, Math.min(lowlinks.get(node), lowlinks.get(next)));
      } else if (onStack.has(next)) {
        lowlinks.set(node, Math.min(lowlinks.get(node), indices.get(next)));
      }
    }
    if (lowlinks.get(node) === indices.get(node)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const node of edges.keys()) if (!indices.has(node)) visit(node);
  return components;
}

/** Exported functions, classes and public methods without a JSDoc comment ("say what it is for"). */
export function undocumentedExports(root) {
  const isExported = (node) => (ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Export) !== 0;
  const hasJsDoc = (node) => ts.getJSDocCommentsAndTags(node).length > 0;
  const found = [];
  const files = [...sourceFiles(join(root, 'worker')), ...sourceFiles(join(root, 'widget'))].filter(
    (file) => !/\.test\.tsx?$/.test(file),
  );
  for (const file of files) {
    const kind = file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, kind);
    const where = (node) => `${relative(root, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    for (const statement of source.statements) {
      if (ts.isFunctionDeclaration(statement) && isExported(statement) && !hasJsDoc(statement)) {
        found.push(`${where(statement)} ${statement.name?.text}`);
      }
      if (ts.isVariableStatement(statement) && isExported(statement)) {
        for (const declaration of statement.declarationList.declarations) {
          const value = declaration.initializer;
          const isFunction = value && (ts.isArrowFunction(value) || ts.isFunctionExpression(value));
          if (isFunction && !hasJsDoc(statement)) found.push(`${where(statement)} ${declaration.name.getText(source)}`);
        }
      }
      if (ts.isClassDeclaration(statement) && isExported(statement)) {
        if (!hasJsDoc(statement)) found.push(`${where(statement)} class ${statement.name?.text}`);
        for (const member of statement.members) {
          const hidden = ts.getCombinedModifierFlags(member) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected);
          if (ts.isMethodDeclaration(member) && !hidden && !hasJsDoc(member)) {
            found.push(`${where(member)} ${statement.name?.text}.${member.name.getText(source)}`);
          }
        }
      }
    }
  }
  return found;
}

/** Lines longer than `limit` in the sources under `root` (code is formatted; strings are wrapped by hand). */
export function longLines(root, limit = 120) {
  const files = ['worker', 'widget', 'scripts', 'test', 'drizzle'].flatMap((folder) =>
    sourceFiles(join(root, folder), /\.(tsx?|mjs|cjs)$/),
  );
  const found = [];
  for (const file of files) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, lineIndex) => {
        if (line.length > limit) found.push(`${relative(root, file)}:${lineIndex + 1} (${line.length})`);
      });
  }
  return found;
}

/** Files under worker/ longer than `limit` lines: a file that grows past it is split by what it does. */
export function longFiles(root, limit = 400) {
  return sourceFiles(join(root, 'worker'))
    .map((file) => ({ file: relative(root, file), lines: readFileSync(file, 'utf8').trimEnd().split('\n').length }))
    .filter((entry) => entry.lines > limit)
    .map((entry) => `${entry.file} (${entry.lines} lines)`);
}
