/** `svc/testing`: drive an app in-process in your own tests. */
export { SvcTestClient } from './test-client.js'
export { loadApp } from './load-app.js'
export type { TestRequestOptions, TestResponse } from './test-client.js'
export type { UiTestHandle, UiTestOptions } from './app-test.js'
