/**
 * The page-facing names: what a page and its tests use. `svc/ui` exports them with the rest of
 * the page runtime, and the package root `svc` re-exports this module as it is.
 */
export { uiMainPath } from './main-path.js'
export { Depends, Header, Cookie } from './inject.js'
export { PageMetaSchema } from './page-meta.js'
export { parseQueryParams } from './query.js'
export { ensureUrlSession, hydrateUrlSession, persistUrlSession, InMemorySessionStore } from './url-session.js'
export { isRunSignal } from './runtime/signals.js'
export { columnConfig } from './st/column-config.js'
export { cacheData, cacheResource } from './cache.js'
export { declareComponent } from './components.js'
export type { St, StContainer, StContext, SessionState, QueryParams, UploadedFile, DataframeSelection, DataEditorOptions, DataframeOptions, DroppedEdits, EditedRows, RowKey, RowRecord, RowsOf, ColumnsOf, ColumnOf, ComponentOptions, MapOptions, PlotlyFigure, PlotlySelection, PlotlyChartOptions } from './st-types.js'
export type { PageMeta, PageOptions, PageHandler } from './page-meta.js'
export type { InjectMap } from './inject.js'
export type { SessionStore } from './url-session.js'
export type { ColumnConfig, ColumnConfigInput } from './st/column-config.js'
export type { EditingState, RowId } from './elements.js'
export type { CacheOptions, CachedFunction } from './cache.js'
export type { NavigationFn, NavigationContext, NavigationPage } from './navigation.js'
export type { StUser, SignedInUser, SignedOutUser } from '../auth/user.js'
export type { Component } from './components.js'
