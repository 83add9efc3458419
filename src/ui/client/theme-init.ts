// Loaded as a blocking script in <head> (dist/client/theme.js): sets data-theme before the first paint.
import { applyThemeMode } from './theme/mode.js'

applyThemeMode()
