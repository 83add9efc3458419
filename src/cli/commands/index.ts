import type { CommandClass } from 'clipanion'
import { ConfigCommand } from './config.js'
import { DoctorCommand } from './doctor.js'
import { NewCommand } from './new.js'
import { PagesManifestCommand } from './pages-manifest.js'
import { ReloadCommand } from './reload.js'
import { ShutdownCommand } from './shutdown.js'
import { StatusCommand } from './status.js'

/** Commands beyond run/dev/workbench (shutdown, reload, status, doctor, pages manifest, new, config) register here. */
export const COMMANDS: CommandClass[] = [ShutdownCommand, ReloadCommand, StatusCommand, DoctorCommand, PagesManifestCommand, NewCommand, ConfigCommand]
