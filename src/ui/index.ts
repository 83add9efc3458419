/**
 * `svc/ui`: the page runtime's public surface. Its page-facing names (pages.ts) are also the
 * package root's (`svc`).
 */
export { uiMainPath } from './main-path.js'
export { Depends, Header, Cookie, isInjectMarker } from './inject.js'
export type { DependsMarker, HeaderMarker, CookieMarker, InjectMarker, InjectMap, InjectedDeps } from './inject.js'
export { PageMetaSchema, defaultPageTitle } from './page-meta.js'
export type { PageMeta, PageOptions, PageHandler } from './page-meta.js'
export { parseQueryParams } from './query.js'
export type { ParseQueryOptions } from './query.js'
export {
  ensureUrlSession,
  hydrateUrlSession,
  persistUrlSession,
  InMemorySessionStore,
  newSessionId,
  urlSessionEnabled,
  urlSessionParam,
  DEFAULT_URL_SESSION_PARAM,
} from './url-session.js'
export type { SessionStore, SessionData, UrlSessionOptions } from './url-session.js'
export { createUiTestHandle, UiTestHandle, ElementView, WidgetView, DEFAULT_UI_TEST_TIMEOUT_MS } from '../testing/app-test.js'
export type { UiTestOptions } from '../testing/app-test.js'
export { buildPageManifest } from '../cli/pages/manifest.js'
export type { PageManifest, ManifestPage, ManifestParameter } from '../cli/pages/manifest.js'
export { renderMarkdown, escapeHtml } from './markdown.js'
export type { MarkdownOptions } from './markdown.js'
export { isRunSignal } from './st/signals.js'
export { cacheData, cacheResource } from './cache.js'
export type { CacheOptions, CachedFunction } from './cache.js'
export { CONTAINER_TYPES, WIDGET_TYPES, isContainerType, isWidgetType } from './wire/elements.js'
export type { ElementPropsMap, ElementType, UiElement, WidgetType, ContainerType } from './wire/elements.js'
export type { UiNode, ServerMessage, NavEntry, PageInfo } from './wire/protocol.js'
export type {
  St,
  StContainer,
  StContext,
  SessionState,
  QueryParams,
  UploadedFile,
  ProgressBar,
  TableData,
  Callback,
  WidgetOptions,
  ButtonOptions,
  CheckboxOptions,
  RadioOptions,
  SelectboxOptions,
  MultiselectOptions,
  SliderOptions,
  TextInputOptions,
  TextAreaOptions,
  NumberInputOptions,
  DateInputOptions,
  FileUploaderOptions,
  DownloadButtonOptions,
  TextOptions,
  AlertOptions,
  HeadingOptions,
  MetricOptions,
  TableOptions,
  DataframeOptions,
  ChartOptions,
  VegaLiteChartOptions,
  ImageOptions,
  LinkOptions,
  ColumnsOptions,
  ExpanderOptions,
  ContainerOptions,
  FormOptions,
  ToastOptions,
} from './st-types.js'
export type { NavigationFn, NavigationContext, NavigationPage } from './navigation.js'
export type { StUser, SignedInUser, SignedOutUser } from '../auth/user.js'
export type { TestUser } from '../testing/app-test.js'
export { declareComponent, COMPONENT_PREFIX, DEFAULT_COMPONENT_VALUE_BYTES } from './components.js'
export type { Component, ComponentSource, ComponentFromFolder, ComponentFromUrl } from './components.js'
export type { ComponentOptions } from './st-types.js'
export { columnConfig } from './column-config.js'
export type { ColumnConfig, ColumnConfigBase, ColumnConfigInput } from './column-config.js'
export type { DataframeSelection, DataEditorOptions, DateValue, DroppedEdits, EditedRows, RowKey, RowRecord, RowsOf, ColumnsOf, ColumnOf } from './st-types.js'
export type { Containers, MapOptions, PlotlyFigure, PlotlyPoint, PlotlySelection, PlotlyChartOptions, IframeOptions, LogoOptions } from './st-types.js'
export type { EditingState, ColumnType, RowId, PlotlyRegion } from './wire/elements.js'
export type {
  AudioInputOptions,
  BadgeOptions,
  CameraInputOptions,
  ChatInputOptions,
  ChatInputValue,
  DataframeSelectionMode,
  DatetimeInputOptions,
  DatetimeValue,
  DownloadData,
  DownloadSource,
  EchoOptions,
  GraphvizChartOptions,
  LatexOptions,
  StTailElements,
} from './st-types.js'
export type { NavigationOptions, NavigationPosition } from './navigation.js'
export type { TimeColumnOptions } from './column-config.js'
export type { BadgeColor, ContainerGap, Sparkline, TableSelectionModes } from './wire/elements.js'
export type { TaskContext, TaskFailure, TaskFn, TaskHandle, TaskOptions, TaskStatus, TaskDefinition } from './tasks/task-types.js'
export type { StCookies, StBrowserStorage, StUserStorage, SocketContext } from './st-types.js'
export type { CookieOptions, CookieReadOptions } from './storage/cookie-jar.js'
export { MemoryUserStore } from './storage/user-store.js'
export type { UserStore } from './storage/user-store.js'
