import type { CommandClass } from 'clipanion'
import { ConfigCommand } from './config.js'
import { DoctorCommand } from './doctor.js'
import { NewCommand } from './new.js'
import { PagesManifestCommand } from './pages-manifest.js'
import { ShutdownCommand } from './shutdown.js'

/** Commands beyond run/dev/workbench (doctor, shutdown, pages manifest, new, config) register here. */
export const COMMANDS: CommandClass[] = [ShutdownCommand, DoctorCommand, PagesManifestCommand, NewCommand, ConfigCommand]
