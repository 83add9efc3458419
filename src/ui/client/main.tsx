import { render } from 'preact'
import { App } from './app.js'
import { readConfig } from './config.js'
import { explainCspViolations } from './csp-hint.js'
import { Runtime } from './runtime.js'
import './styles/base.css'
import './styles/shell.css'
import './styles/elements.css'
import './styles/widgets.css'
import './styles/data.css'
import './styles/chat.css'
import './styles/charts.css'

explainCspViolations()
const runtime = new Runtime(readConfig())
const root = document.getElementById('root') ?? document.getElementById('svc-root') ?? document.body.appendChild(document.createElement('div'))
render(<App runtime={runtime} />, root)
runtime.start()
import './styles/theme.css'
import './styles/elements-more.css'
import './styles/tail.css'
