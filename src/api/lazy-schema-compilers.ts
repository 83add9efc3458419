import { createRequire } from 'node:module'
import type { FastifyInstance, FastifyServerOptions } from 'fastify'
import { compileZodSerializer, compileZodValidator } from './zod-compilers.js'
import { isZodSchema } from './zod-schema.js'

type SchemaControllerOptions = NonNullable<FastifyServerOptions['schemaController']>
type CompilersFactory = NonNullable<SchemaControllerOptions['compilersFactory']>
type ValidatorFactory = NonNullable<CompilersFactory['buildValidator']>
type SerializerFactory = NonNullable<CompilersFactory['buildSerializer']>

/** Resolved as Fastify resolves them: they are its dependencies, not svc's. */
const requireFromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'))

/**
 * Fastify requires its default schema compilers (ajv, ajv-formats, fast-json-stringify: 113
 * modules, about 40 ms on a 2-core VM) the moment an instance is created, yet only a route with
 * a schema uses them: an API without schemas, the page server (which never readies the API)
 * and every health route never do. These builders require Fastify's defaults on first use and
 * pass the call through, so what a route with a JSON schema gets is unchanged. A zod schema (a
 * typed route, `app.route()`) goes to svc's zod compilers instead, whatever compiles the others:
 * an API whose schemas are all zod never loads ajv or fast-json-stringify.
 */
export function withLazySchemaCompilers(given: SchemaControllerOptions | undefined): { options: SchemaControllerOptions; lazy: LazyFlags } {
  const factory = given?.compilersFactory ?? {}
  return {
    options: {
      ...given,
      compilersFactory: {
        buildValidator: zodFirst(factory.buildValidator ?? onFirstCall('@fastify/ajv-compiler'), compileZodValidator) as ValidatorFactory,
        buildSerializer: zodFirst(factory.buildSerializer ?? onFirstCall('@fastify/fast-json-stringify-compiler'), compileZodSerializer) as SerializerFactory,
      },
    },
    lazy: { validator: factory.buildValidator === undefined, serializer: factory.buildSerializer === undefined },
  }
}

type Compile = (route: { schema?: unknown }) => unknown
type Factory = (externalSchemas: unknown, options: unknown) => Compile

/** A factory whose compiler sends zod schemas to `zod` and builds the JSON one on first need. */
function zodFirst(json: ValidatorFactory | SerializerFactory | Factory, zod: (route: never) => unknown): Factory {
  return (externalSchemas, options) => {
    let compile: Compile | undefined
    return (route) => (isZodSchema(route.schema) ? zod(route as never) : (compile ??= (json as Factory)(externalSchemas, options))(route))
  }
}

/** Both packages export a selector: called once, it returns the factory Fastify would use. */
type Selector = () => Factory

function onFirstCall(pkg: string): Factory {
  let factory: ReturnType<Selector> | undefined
  return (externalSchemas, options) => {
    factory ??= (requireFromFastify(pkg) as Selector)()
    return factory(externalSchemas, options)
  }
}

export interface LazyFlags {
  validator: boolean
  serializer: boolean
}

/**
 * Fastify marks a compiler given in `compilersFactory` as custom, and a custom validator gets
 * header schemas as written instead of with lower-cased keys (Node lower-cases header names).
 * Ours stand in for the defaults, so the instance is told they are the defaults. The controller
 * sits under a symbol Fastify does not export: false when it is not there (a Fastify release
 * moved it), and the caller builds the instance with eager defaults instead;
 * test/unit/api/lazy-schema-compilers.test.ts fails on such a release.
 */
export function markCompilersDefault(api: FastifyInstance, lazy: LazyFlags): boolean {
  const key = Object.getOwnPropertySymbols(api).find((s) => s.description === 'fastify.schemaController')
  const controller = key === undefined ? undefined : ((api as unknown as Record<symbol, unknown>)[key] as Partial<SchemaControllerState> | undefined)
  if (typeof controller?.isCustomValidatorCompiler !== 'boolean' || typeof controller.isCustomSerializerCompiler !== 'boolean') return false
  if (lazy.validator) controller.isCustomValidatorCompiler = false
  if (lazy.serializer) controller.isCustomSerializerCompiler = false
  return true
}

interface SchemaControllerState {
  isCustomValidatorCompiler: boolean
  isCustomSerializerCompiler: boolean
}
