import type { CommandClass } from 'clipanion'
import { DoctorCommand } from './doctor.js'
import { NewCommand } from './new.js'
import { PagesManifestCommand } from './pages-manifest.js'
import { ShutdownCommand } from './shutdown.js'

/** Commands beyond run/dev/workbench (doctor, shutdown, pages manifest, new) register here. */
export const COMMANDS: CommandClass[] = [ShutdownCommand, DoctorCommand, PagesManifestCommand, NewCommand]
