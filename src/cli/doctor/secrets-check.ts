import { relative } from 'node:path'
import { SECRET_ENV_PREFIX, envSpelling } from '../../secrets/secret-sources.js'
import { describeOrigin, type SecretsReport } from '../../secrets/secrets.js'
import { fail, pass, warn, type CheckRow, type DoctorContext } from './types.js'

/**
 * `secrets_file` and one `secret:<name>` row per secret: present (and from where) or missing,
 * never a value. Rows come from the report the app built while loading (also when loading failed
 * on the secrets themselves); nothing when the app did not load for another reason.
 */
export function secretsRows(ctx: DoctorContext): CheckRow[] | null {
  const report = ctx.secrets
  if (report === null) return null
  return [fileRow(ctx, report), ...report.secrets.map((s) => secretRow(ctx, report, s))]
}

function fileRow(ctx: DoctorContext, report: SecretsReport): CheckRow {
  const shown = relative(ctx.cwd, report.file) || report.file
  if (!report.fileFound) {
    const fromEnv = report.secrets.filter((s) => s.origin?.kind === 'env').length
    return pass('secrets_file', `${shown} not found; ${fromEnv} secret(s) from ${SECRET_ENV_PREFIX}* variables`)
  }
  const inFile = report.secrets.filter((s) => s.origin?.kind === 'file').length
  if (report.fileMode !== null && (report.fileMode & 0o077) !== 0) {
    const mode = report.fileMode.toString(8).padStart(3, '0')
    return warn('secrets_file', `${shown} is readable by other users (mode ${mode}); run: chmod 600 ${shown}`)
  }
  return pass('secrets_file', `${shown} (${inFile} secret(s) used from it)`)
}

function secretRow(ctx: DoctorContext, report: SecretsReport, s: SecretsReport['secrets'][number]): CheckRow {
  const name = `secret:${s.name}`
  if (s.present && s.problem === null) return pass(name, `present (${describe(ctx, s.origin!)})`)
  if (s.present) return fail(name, `present (${describe(ctx, s.origin!)}) but invalid: ${s.problem}`)
  const fix = `set ${SECRET_ENV_PREFIX}${envSpelling(s.name)} or add "${s.name}" to ${relative(ctx.cwd, report.file) || report.file}`
  return s.required ? fail(name, `missing (the secrets schema requires it); ${fix}`) : pass(name, `not set (optional)`)
}

function describe(ctx: DoctorContext, origin: NonNullable<SecretsReport['secrets'][number]['origin']>): string {
  return origin.kind === 'file' ? relative(ctx.cwd, origin.file) || origin.file : describeOrigin(origin)
}
