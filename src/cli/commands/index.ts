import type { CommandClass } from 'clipanion'

/** Commands beyond run/dev/workbench (doctor, shutdown, pages manifest) register here. */
export const COMMANDS: CommandClass[] = []
