/**
 * svc's one entry to zod. The build (scripts/bundle-zod.mjs) replaces the compiled file with a
 * single-file bundle of zod: zod's ESM build is 95 modules, which took about 60 ms to load in
 * each svc process against 20 ms for the bundle (Node 24, compile cache on, 2-core VM), three
 * times on the way to a ready tree. Types still come from the `zod` package.
 */
export { z } from 'zod'
