import type { NavEntry, UiNode } from '../../src/ui/wire/protocol.js'
import type { ColumnKind, ColumnType, DataColumn, ElementPropsMap, ElementType, WidgetBase } from '../../src/ui/wire/elements.js'
import { chartProps } from '../../src/ui/st/charts.js'

/** A typed node builder for fixtures. */
export function el<T extends ElementType>(id: string, type: T, props: ElementPropsMap[T], children?: UiNode[]): UiNode {
  return { id, type, props: props as unknown as Record<string, unknown>, ...(children ? { children } : {}) }
}

export function widget(label: string, extra: Partial<WidgetBase> = {}): WidgetBase {
  return { label, key: null, help: null, disabled: false, formId: null, labelVisibility: 'visible', ...extra }
}

/** A dataframe column with no configuration beyond its type. */
export function dataColumn(name: string, kind: ColumnKind, type: ColumnType): DataColumn {
  return { name, kind, type, label: name, width: null, help: null, pinned: false, format: null, min: null, max: null, step: null, displayText: null, options: null, disabled: true, default: null }
}

export const NAV: NavEntry[] = [
  { path: '/', title: 'Overview', icon: '📊', order: 0 },
  { path: '/showcase', title: 'Showcase', icon: '🧩', order: 1 },
  { path: '/reports', title: 'Reports', icon: '📄', order: 2 },
]

const days = Array.from({ length: 30 }, (_, i) => new Date(Date.UTC(2026, 0, 1 + i)).toISOString())
const wave = (a: number, p: number) => days.map((_, i) => Math.round((a + a * 0.35 * Math.sin(i / p) + i * 2.1) * 10) / 10)

/** Every element type of the catalogue at least once. */
export function showcaseMain(): UiNode[] {
  return [
    el('m.0', 'title', { text: 'Showcase', anchor: null, help: null }),
    el('m.1', 'caption', { html: 'Every element type the client renders, with <strong>fixture data</strong>.' }),
    el('m.2', 'columns', { gap: 'medium', verticalAlign: 'top', border: false }, [
      el('m.2.0', 'column', { weight: 1 }, [el('m.2.0.0', 'metric', { label: 'Revenue', value: '$48.2k', delta: '+12.4%', deltaColor: 'normal', deltaDirection: 'up', help: null, border: true })]),
      el('m.2.1', 'column', { weight: 1 }, [el('m.2.1.0', 'metric', { label: 'Churn', value: '2.1%', delta: '+0.3 pp', deltaColor: 'inverse', deltaDirection: 'up', help: 'Monthly', border: true })]),
      el('m.2.2', 'column', { weight: 1 }, [el('m.2.2.0', 'metric', { label: 'Latency p95', value: '182 ms', delta: '-14 ms', deltaColor: 'inverse', deltaDirection: 'down', help: null, border: true })]),
    ]),
    el('m.3', 'header', { text: 'Charts', anchor: 'charts', divider: true, help: null }),
    el('m.4', 'lineChart', chartProps('line', { day: days, api: wave(120, 3), ui: wave(60, 5) }, { x: 'day', yLabel: 'Requests / min', height: 260 })),
    el('m.5', 'tabs', { labels: ['Bars', 'Area', 'Scatter'] }, [
      el('m.5.0', 'tab', { label: 'Bars' }, [
        el('m.5.0.0', 'barChart', chartProps('bar', {
          Day: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'], Signups: [12, 19, 15, 22, 28, 9, 7], Trials: [5, 8, 6, 11, 13, 4, 2],
        }, { x: 'Day', height: 240 })),
      ]),
      el('m.5.1', 'tab', { label: 'Area' }, [
        el('m.5.1.0', 'areaChart', chartProps('area', {
          Step: Array.from({ length: 20 }, (_, i) => i), a: Array.from({ length: 20 }, (_, i) => 5 + (i % 5)), b: Array.from({ length: 20 }, (_, i) => 3 + (i % 3)),
        }, { x: 'Step', height: 220, stacked: true })),
      ]),
      el('m.5.2', 'tab', { label: 'Scatter' }, [
        el('m.5.2.0', 'scatterChart', chartProps('scatter', {
          x: Array.from({ length: 40 }, (_, i) => i * 1.5), y: Array.from({ length: 40 }, (_, i) => Math.round(Math.sin(i) * 40 + i * 2)),
        }, { x: 'x', y: 'y', height: 220 })),
      ]),
    ]),
    el('m.6', 'header', { text: 'Data', anchor: null, divider: false, help: null }),
    el('m.7', 'dataframe', {
      columns: [
        dataColumn('id', 'number', 'number'),
        dataColumn('customer', 'string', 'text'),
        dataColumn('active', 'boolean', 'checkbox'),
        dataColumn('amount', 'number', 'number'),
        dataColumn('created', 'date', 'date'),
      ],
      rows: Array.from({ length: 10 }, (_, i) => [i + 1, ['Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli'][i % 5]!, i % 3 !== 0, 1234.5 * (i + 1), `2026-01-${String(i + 1).padStart(2, '0')}`]),
      rowIds: Array.from({ length: 10 }, (_, i) => i),
      totalRows: 137, page: 0, pageSize: 10, sort: null, height: null, hideIndex: false, useContainerWidth: false, selectionMode: null, selection: [], rowsVersion: null,
    }),
    el('m.8', 'table', { columns: [{ name: 'region', kind: 'string' }, { name: 'share', kind: 'number' }, { name: 'note', kind: 'string' }], rows: [['EMEA', 0.42, 'steady'], ['AMER', 0.38, null], ['APAC', 0.2, 'growing']] }),
    el('m.9', 'json', { value: { service: 'svc', ports: [8000, 8001], healthy: true, owner: null, nested: { a: 1, b: 'two' } }, expanded: false }),
    el('m.10', 'header', { text: 'Status', anchor: null, divider: false, help: null }),
    el('m.11', 'success', { html: 'Deployment <strong>finished</strong>.', icon: null }),
    el('m.12', 'info', { html: 'Data refreshes every 5 minutes.', icon: null }),
    el('m.13', 'warning', { html: 'Disk usage is above 80%.', icon: null }),
    el('m.14', 'error', { html: 'The upstream API returned 502.', icon: null }),
    el('m.15', 'exception', { name: 'TypeError', message: "Cannot read properties of undefined (reading 'id')", stack: 'TypeError: boom\n    at page (app.ts:12:5)', hidden: false, requestId: 'req-1' }),
    el('m.16', 'progress', { value: 0.62, text: 'Importing rows… 62%' }),
    el('m.17', 'spinner', { text: 'Loading forecasts…' }),
    el('m.18', 'header', { text: 'Inputs', anchor: null, divider: false, help: null }),
    el('m.19', 'columns', { gap: 'large', verticalAlign: 'top', border: false }, [
      el('m.19.0', 'column', { weight: 1 }, [
        el('w.name', 'textInput', { ...widget('Name', { help: 'Your full name' }), value: 'Ada', placeholder: 'Type a name', maxChars: 40, inputType: 'default' }),
        el('w.pw', 'textInput', { ...widget('API token'), value: '', placeholder: 'sk-…', maxChars: null, inputType: 'password' }),
        el('w.count', 'numberInput', { ...widget('Replicas'), value: 3, min: 1, max: 10, step: 1, format: null, placeholder: '' }),
        el('w.date', 'dateInput', { ...widget('Start date'), value: '2026-01-15', min: null, max: null }),
        el('w.sel', 'selectbox', { ...widget('Region'), options: ['EMEA', 'AMER', 'APAC'], value: 0, placeholder: '' }),
      ]),
      el('m.19.1', 'column', { weight: 1 }, [
        el('w.multi', 'multiselect', { ...widget('Services'), options: ['api', 'ui', 'worker', 'cron'], value: [0, 1], maxSelections: null, placeholder: '' }),
        el('w.slider', 'slider', { ...widget('Threshold'), min: 0, max: 100, step: 1, value: 40, format: '%d%%' }),
        el('w.range', 'slider', { ...widget('Price range'), min: 0, max: 500, step: 10, value: [100, 300], format: '$%d' }),
        el('w.radio', 'radio', { ...widget('Plan'), options: ['Free', 'Team', 'Enterprise'], value: 1, horizontal: true, captions: null }),
        el('w.check', 'checkbox', { ...widget('Send weekly digest'), value: true }),
        el('w.toggle', 'toggle', { ...widget('Dark launches'), value: false }),
      ]),
    ]),
    el('w.notes', 'textArea', { ...widget('Notes'), value: '', placeholder: 'Anything we should know?', maxChars: 200, height: null }),
    el('w.upload', 'fileUploader', { ...widget('Attachments'), value: [{ name: 'report.csv', type: 'text/csv', size: 20480 }], accept: ['.csv', '.json'], multiple: true, maxBytes: 5 * 1024 * 1024 }),
    el('m.20', 'form', { formId: 'f1', clearOnSubmit: false, border: true, clears: 0 }, [
      el('m.20.0', 'subheader', { text: 'Invite a teammate', anchor: null, divider: false, help: null }),
      el('w.f.email', 'textInput', { ...widget('Email', { formId: 'f1' }), value: '', placeholder: 'name@example.com', maxChars: null, inputType: 'default' }),
      el('w.f.role', 'selectbox', { ...widget('Role', { formId: 'f1' }), options: ['Viewer', 'Editor', 'Admin'], value: 0, placeholder: '' }),
      el('w.f.submit', 'formSubmitButton', { ...widget('Send invite', { formId: 'f1' }), value: false, kind: 'primary', icon: null, useContainerWidth: false }),
    ]),
    el('m.21', 'columns', { gap: 'small', verticalAlign: 'center', border: false }, [
      el('m.21.0', 'column', { weight: 1 }, [el('w.btn', 'button', { ...widget('Refresh'), value: false, kind: 'primary', icon: '↻', useContainerWidth: true })]),
      el('m.21.1', 'column', { weight: 1 }, [el('w.btn2', 'button', { ...widget('Cancel'), value: false, kind: 'secondary', icon: null, useContainerWidth: true })]),
      el('m.21.2', 'column', { weight: 1 }, [el('w.dl', 'downloadButton', { ...widget('Export CSV'), value: false, url: 'data:text/csv;base64,YSxiCjEsMgo=', fileName: 'export.csv', mime: 'text/csv', kind: 'secondary', icon: null, useContainerWidth: true })]),
    ]),
    el('m.22', 'expander', { label: 'Advanced settings', expanded: false, icon: '⚙️' }, [el('m.22.0', 'markdown', { html: '<p>Hidden until opened.</p>' })]),
    el('m.23', 'container', { border: true, height: null }, [
      el('m.23.0', 'markdown', { html: '<p>A bordered container with <code>inline code</code> and a <a href="https://example.com">link</a>.</p><ul><li>one</li><li>two</li></ul>' }),
      el('m.23.1', 'code', { code: "import { Svc } from 'svc'\n\nconst app = new Svc()\napp.page('/', (st) => st.title('Hello'))", language: 'ts', lineNumbers: false }),
      el('m.23.2', 'text', { text: 'fixed   width   text' }),
    ]),
    el('m.24', 'link', { label: 'Open reports', href: '/reports', page: '/reports', newTab: false, icon: '📄' }),
    el('m.25', 'link', { label: 'Documentation', href: 'https://example.com/docs', page: null, newTab: true, icon: null }),
    el('m.26', 'image', { url: 'data:image/svg+xml;base64,' + Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="600" height="120"><defs><linearGradient id="g"><stop offset="0" stop-color="#4f46e5"/><stop offset="1" stop-color="#0ea5a4"/></linearGradient></defs><rect width="600" height="120" rx="12" fill="url(#g)"/></svg>').toString('base64'), caption: 'A gradient image', width: null, alt: 'gradient' }),
    el('m.27', 'divider', {}),
    el('m.28', 'empty', {}, [el('m.28.0', 'markdown', { html: '<p>Inside an <em>empty</em> placeholder.</p>' })]),
    el('m.29', 'chatMessage', { role: 'assistant', avatar: null, avatarKind: 'default' }, [el('m.29.0', 'markdown', { html: '<p>Ask me about these numbers.</p>' })]),
    el('w.chat', 'chatInput', { ...widget('Ask a question', { labelVisibility: 'collapsed' }), placeholder: 'Ask a question', maxChars: null, pinned: false }),
    el('w.time', 'timeInput', { ...widget('Start time'), value: '09:30', step: 900 }),
    el('w.colour', 'colorPicker', { ...widget('Accent'), value: '#4f46e5' }),
    el('w.sel-slider', 'selectSlider', { ...widget('Size'), options: ['S', 'M', 'L', 'XL'], value: 1 }),
    el('w.pills', 'pills', { ...widget('Teams'), options: ['North', 'South', 'East'], selectionMode: 'multi', value: [0, 2] }),
    el('w.segmented', 'segmentedControl', { ...widget('View'), options: ['Day', 'Week', 'Month'], selectionMode: 'single', value: [1] }),
    el('w.feedback', 'feedback', { ...widget(''), options: 'thumbs', value: null }),
    el('w.when', 'datetimeInput', { ...widget('Meeting'), value: '2026-03-01T09:30', min: null, max: null, step: 900 }),
    el('w.voice', 'audioInput', { ...widget('Voice note'), value: null, sampleRate: 16000, maxBytes: 1_000_000 }),
    el('w.photo', 'cameraInput', { ...widget('Badge photo'), value: null, maxBytes: 1_000_000 }),
  ]
}

export function showcaseSidebar(): UiNode[] {
  return [
    el('s.0', 'subheader', { text: 'Filters', anchor: null, divider: false, help: null }),
    el('w.s.env', 'selectbox', { ...widget('Environment'), options: ['production', 'staging'], value: 0, placeholder: '' }),
    el('w.s.live', 'toggle', { ...widget('Live updates'), value: true }),
  ]
}
