import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import ts from 'typescript'
import type { DocBlock } from './doc-blocks.js'

/**
 * The TypeScript blocks of the docs, each compiled as its own module in a project made by
 * `svc new`, all in one TypeScript program. The convention (docs/README.md, "Code blocks"):
 *
 * - Each block is a module of its own. `file=<name>` in the info string names its file (next to
 *   the doc's other files, so they can import each other); else it is `block-<line>.ts`.
 * - A block may use, without declaring them: every export of `svc` (only when the block has no
 *   import of its own: a block that imports must import all it uses), and the context names:
 *   `app`, `st` and `client` (`CONTEXT` below) and the doc's prelude, an HTML comment
 *   `<!-- typecheck prelude` ... `-->` declaring its example data and helpers. A name the block
 *   declares or imports itself wins: that part of the prelude is left out.
 * - `<!-- typecheck file=<path>` ... `-->` is a hidden file next to the doc's blocks (the `app.ts`
 *   that `import { app } from './app.js'` finds).
 */
const TS_LANGS = new Set(['ts', 'typescript', 'tsx'])

/** What a snippet may use as if it were inside a page or next to the app. */
const CONTEXT = `declare const app: import('svc').Svc
declare const st: import('svc').St
declare const client: import('svc').ApiClient
`

/** Packages the docs import that neither svc nor the project installs: declared, as a user's install would. */
const STAND_INS = `declare module 'pg' {
  class Pool {
    constructor(options: { connectionString?: string | undefined })
    query(sql: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>
  }
  const pg: { Pool: typeof Pool }
  export default pg
}
`

const HIDDEN = /<!--\s*typecheck (prelude|file=(\S+))\s*\n([\s\S]*?)-->/g

export interface DocProblem {
  /** `docs/pages.md:712`, the doc line of the problem (or of the block's fence). */
  at: string
  code: string
  message: string
}

export interface DocsCheck {
  /** Problems of each block, keyed by `doc:fenceLine`. */
  problems: Map<string, DocProblem[]>
  /** How many blocks were compiled. */
  blocks: number
}

export function isTypeScriptBlock(block: DocBlock): boolean {
  return TS_LANGS.has(block.lang)
}

/** What a doc hides for its blocks: its prelude, and files they import (`./app.js`). */
export interface DocHidden {
  prelude: string
  files: { path: string; body: string }[]
}

/** The hidden parts of `doc`: `<!-- typecheck prelude ... -->` and `<!-- typecheck file=<path> ... -->` comments. */
export function docHidden(root: string, doc: string): DocHidden {
  const hidden: DocHidden = { prelude: '', files: [] }
  for (const m of readFileSync(join(root, doc), 'utf8').matchAll(HIDDEN)) {
    if (m[1] === 'prelude') hidden.prelude += m[3]!
    else hidden.files.push({ path: m[2]!, body: m[3]! })
  }
  return hidden
}

function folderOf(project: string, doc: string): string {
  return join(project, 'docs-check', doc.replace(/[^A-Za-z0-9]+/g, '-'))
}

interface Source {
  block: DocBlock
  file: string
  /** Lines added above the block's first line. */
  offset: number
}

/**
 * Compile `blocks` (TypeScript blocks of the docs) in `project` (a `svc new` project with svc and
 * the packages the docs import installed) with the project's tsconfig.json, in one program.
 */
export function checkDocBlocks(project: string, blocks: readonly DocBlock[], hidden: ReadonlyMap<string, DocHidden>): DocsCheck {
  const config = ts.getParsedCommandLineOfConfigFile(join(project, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')) } })!
  const options = { ...config.options, noEmit: true }
  const probe = exportsOfSvc(project, options)
  const svcNames = probe.names
  const standIns = join(project, 'docs-check', 'stand-ins.d.ts')
  mkdirSync(dirname(standIns), { recursive: true })
  writeFileSync(standIns, STAND_INS)
  const hiddenFiles: string[] = [standIns]
  for (const [doc, h] of hidden) {
    for (const f of h.files) {
      const file = join(folderOf(project, doc), f.path)
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, f.body)
      hiddenFiles.push(file)
    }
  }
  const sources: Source[] = blocks.map((block) => {
    const file = join(folderOf(project, block.doc), typeof block.attrs.file === 'string' ? block.attrs.file : `block-${block.line}.${block.lang === 'tsx' ? 'tsx' : 'ts'}`)
    const prelude = preludeFor(block, svcNames, hidden.get(block.doc)?.prelude ?? '')
    mkdirSync(dirname(file), { recursive: true })
    // `export {}`: a snippet without imports is still a module, so blocks never see each other's names.
    writeFileSync(file, `${prelude}${block.body}export {}\n`)
    return { block, file, offset: prelude === '' ? 0 : prelude.split('\n').length - 1 }
  })
  // The probe's files (svc's declarations, the libs) are reused, not parsed again.
  const program = ts.createProgram({ rootNames: [...hiddenFiles, ...sources.map((s) => s.file)], options, oldProgram: probe.program })
  const problems = new Map<string, DocProblem[]>()
  // A hidden file that does not compile fails the check too (as its doc's line 0).
  for (const file of hiddenFiles) {
    const found = ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).filter((d) => d.category === ts.DiagnosticCategory.Error)
    if (found.length > 0) problems.set(file, found.map((d) => ({ at: file, code: `TS${d.code}`, message: ts.flattenDiagnosticMessageText(d.messageText, '\n') })))
  }
  for (const s of sources) {
    const found = ts.getPreEmitDiagnostics(program, program.getSourceFile(s.file)).filter((d) => d.category === ts.DiagnosticCategory.Error)
    problems.set(`${s.block.doc}:${s.block.line}`, found.map((d) => problemOf(d, s)))
  }
  return { problems, blocks: sources.length }
}

function problemOf(d: ts.Diagnostic, s: Source): DocProblem {
  const message = ts.flattenDiagnosticMessageText(d.messageText, '\n')
  const code = `TS${d.code}`
  if (!d.file || d.start === undefined || d.file.fileName !== s.file) return { at: `${s.block.doc}:${s.block.line}`, code, message: `${d.file ? `${d.file.fileName}: ` : ''}${message}` }
  const line = d.file.getLineAndCharacterOfPosition(d.start).line
  // Inside the prelude: the fence's line (the block's context is what fails).
  const docLine = line < s.offset ? s.block.line : s.block.line + 1 + line - s.offset
  return { at: `${s.block.doc}:${docLine}`, code, message }
}

/** Every name `svc` exports (values and types), read by TypeScript from the package as installed. */
function exportsOfSvc(project: string, options: ts.CompilerOptions): { names: string[]; program: ts.Program } {
  const probe = join(project, 'docs-check', 'svc-exports.ts')
  mkdirSync(dirname(probe), { recursive: true })
  writeFileSync(probe, "export * as svc from 'svc'\n")
  const program = ts.createProgram({ rootNames: [probe], options })
  const checker = program.getTypeChecker()
  const file = program.getSourceFile(probe)!
  const decl = file.statements[0] as ts.ExportDeclaration
  const symbol = checker.getSymbolAtLocation(decl.moduleSpecifier!)
  if (!symbol) throw new Error("the docs' project cannot resolve 'svc' (is dist/ built?)")
  return { names: checker.getExportsOfModule(symbol).map((s) => s.name), program }
}

/**
 * The lines a snippet gets above it: of svc's exports and the context, what it uses and does not
 * declare itself, and what those use in turn (nothing more: a context line above a block that
 * declares a name it uses would read that name before its declaration).
 */
function preludeFor(block: DocBlock, svcNames: readonly string[], docPrelude: string): string {
  const own = ts.createSourceFile('block.ts', block.body, ts.ScriptTarget.Latest, true)
  const bound = boundNames(own)
  const needed = identifiersOf(own)
  const context = ts.createSourceFile('context.ts', CONTEXT + docPrelude, ts.ScriptTarget.Latest, true)
  const chosen = new Set<ts.Statement>()
  for (let grew = true; grew; ) {
    grew = false
    for (const statement of context.statements) {
      if (chosen.has(statement) || ts.isImportDeclaration(statement)) continue
      const names = namesOf(statement)
      if ([...names].some((n) => bound.has(n)) || ![...names].some((n) => needed.has(n))) continue
      chosen.add(statement)
      for (const id of identifiersOf(statement)) needed.add(id)
      grew = true
    }
  }
  let imports = ''
  const imported = new Set<string>()
  for (const statement of context.statements) {
    const named = ts.isImportDeclaration(statement) ? statement.importClause?.namedBindings : undefined
    if (!named || !ts.isNamedImports(named)) continue
    const keep = named.elements.filter((e) => needed.has(e.name.text) && !bound.has(e.name.text))
    for (const e of keep) imported.add(e.name.text)
    if (keep.length > 0) imports += `import { ${keep.map((e) => e.getText(context)).join(', ')} } from ${(statement as ts.ImportDeclaration).moduleSpecifier.getText(context)}\n`
  }
  const importsItself = own.statements.some((st) => ts.isImportDeclaration(st))
  const svc = importsItself ? [] : svcNames.filter((n) => needed.has(n) && !bound.has(n) && !imported.has(n))
  let out = svc.length > 0 ? `import { ${svc.join(', ')} } from 'svc'\n` : ''
  out += imports
  for (const statement of context.statements) if (chosen.has(statement)) out += statement.getFullText(context).replace(/^\s*\n/, '') + '\n'
  return out
}

/** The identifiers in `node` that may name something in scope (not `.x` of `a.x`, nor an object key). */
function identifiersOf(node: ts.Node): Set<string> {
  const ids = new Set<string>()
  const visit = (n: ts.Node): void => {
    if (ts.isIdentifier(n) && !isMemberName(n)) ids.add(n.text)
    ts.forEachChild(n, visit)
  }
  visit(node)
  return ids
}

function isMemberName(n: ts.Identifier): boolean {
  const p = n.parent
  if (ts.isPropertyAccessExpression(p) || ts.isQualifiedName(p)) return (ts.isPropertyAccessExpression(p) ? p.name : p.right) === n
  return (ts.isPropertyAssignment(p) || ts.isPropertySignature(p) || ts.isPropertyDeclaration(p) || ts.isMethodDeclaration(p) || ts.isMethodSignature(p)) && p.name === n
}

/** The names a module binds at its top level. */
function boundNames(file: ts.SourceFile): Set<string> {
  const names = new Set<string>()
  for (const s of file.statements) for (const n of namesOf(s)) names.add(n)
  return names
}

function namesOf(s: ts.Statement): Set<string> {
  const names = new Set<string>()
  const bind = (name: ts.BindingName): void => {
    if (ts.isIdentifier(name)) names.add(name.text)
    else for (const e of name.elements) if (!ts.isOmittedExpression(e)) bind(e.name)
  }
  if (ts.isImportDeclaration(s) && s.importClause) {
    const c = s.importClause
    if (c.name) names.add(c.name.text)
    if (c.namedBindings && ts.isNamespaceImport(c.namedBindings)) names.add(c.namedBindings.name.text)
    if (c.namedBindings && ts.isNamedImports(c.namedBindings)) for (const e of c.namedBindings.elements) names.add(e.name.text)
  } else if (ts.isVariableStatement(s)) {
    for (const d of s.declarationList.declarations) bind(d.name)
  } else if ((ts.isFunctionDeclaration(s) || ts.isClassDeclaration(s) || ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s) || ts.isEnumDeclaration(s) || ts.isModuleDeclaration(s)) && s.name && ts.isIdentifier(s.name)) {
    names.add(s.name.text)
  }
  return names
}
