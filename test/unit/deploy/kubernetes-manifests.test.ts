import { readFileSync, readdirSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseAllDocuments } from 'yaml'
import { Deployment } from 'kubernetes-models/apps/v1/Deployment'
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress'
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget'
import { Secret } from 'kubernetes-models/v1/Secret'
import { Service } from 'kubernetes-models/v1/Service'
import { FIELDS } from '../../../src/settings/schema.js'
import { GUARD_EXTRA_MS, SIDECAR_STOP_GRACE_MS, WORKER_KILL_MARGIN_MS } from '../../../src/internal/deadlines.js'
import { REPO } from '../../helpers/svc-process.js'

/** Every manifest under deploy/kubernetes/, validated against the Kubernetes OpenAPI schemas (kubernetes-models). */
const DIR = `${REPO}deploy/kubernetes/`

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'networking.k8s.io/v1/Ingress': Ingress,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'v1/Secret': Secret,
  'v1/Service': Service,
}

interface Manifest {
  file: string
  apiVersion: string
  kind: string
  metadata: { name: string; annotations?: Record<string, string> }
  spec: Record<string, unknown>
  [k: string]: unknown
}

function load(): Manifest[] {
  const out: Manifest[] = []
  for (const file of readdirSync(DIR).filter((f) => f.endsWith('.yaml')).sort()) {
    for (const doc of parseAllDocuments(readFileSync(DIR + file, 'utf8'))) {
      expect(doc.errors, `${file}: YAML errors`).toEqual([])
      out.push({ ...(doc.toJS() as Manifest), file })
    }
  }
  return out
}

const manifests = load()
const find = (kind: string, name: string): Manifest => {
  const m = manifests.find((x) => x.kind === kind && x.metadata.name === name)
  if (!m) throw new Error(`no ${kind} ${name} in deploy/kubernetes/`)
  return m
}

interface Probe { httpGet?: { path: string; port: string } }
interface Container {
  name: string
  args: string[]
  ports: { name: string; containerPort: number }[]
  env: { name: string; value?: string; valueFrom?: { secretKeyRef: { name: string; key: string } } }[]
  livenessProbe: Probe
  readinessProbe: Probe
  startupProbe: Probe
  lifecycle: { preStop: { exec: { command: string[] } } }
  resources: { requests: { cpu: string; memory: string }; limits: { memory: string } }
}
const podSpec = (d: Manifest) => (d.spec.template as { spec: { terminationGracePeriodSeconds: number; containers: Container[] } }).spec
const svcContainer = (): Container => podSpec(find('Deployment', 'svc')).containers.find((c) => c.name === 'svc')!
const envOf = (c: Container, name: string): string | undefined => c.env.find((e) => e.name === name)?.value

describe('deploy/kubernetes manifests', () => {
  it('every document is a known kind and valid against the Kubernetes schemas', () => {
    expect(manifests.length).toBeGreaterThanOrEqual(6)
    for (const m of manifests) {
      const { file, ...doc } = m
      const Model = MODELS[`${doc.apiVersion}/${doc.kind}`]
      expect(Model, `${file}: ${doc.apiVersion} ${doc.kind} has no schema check here`).toBeDefined()
      expect(() => new Model!(doc as never).validate(), `${file}: ${doc.kind} ${doc.metadata.name}`).not.toThrow()
    }
  })

  it('the schema check is real: a wrong type is rejected', () => {
    const d = structuredClone(find('Deployment', 'svc')) as Manifest
    delete (d as { file?: string }).file
    ;(podSpec(d).containers[0]!.ports[0] as { containerPort: unknown }).containerPort = 'eight thousand'
    expect(() => new Deployment(d as never).validate()).toThrow(/containerPort must be integer/)
  })

  it('liveness on healthz, readiness on readyz, on the container port svc binds', () => {
    const c = svcContainer()
    expect(c.livenessProbe.httpGet).toEqual({ path: '/api/healthz', port: 'http' })
    expect(c.startupProbe.httpGet).toEqual({ path: '/api/healthz', port: 'http' })
    expect(c.readinessProbe.httpGet).toEqual({ path: '/api/readyz', port: 'http' })
    expect(c.ports).toEqual([{ name: 'http', containerPort: Number(envOf(c, 'SVC_GATEWAY_PORT')) }])
    expect(envOf(c, 'SVC_GATEWAY_HOST')).toBe('0.0.0.0')
    expect(envOf(c, 'SVC_TRUST_PROXY')).toBe('1')
  })

  it('terminationGracePeriodSeconds = preStop sleep + shutdown_grace_s + svc stop margins + 2 s', () => {
    const c = svcContainer()
    const [sleep, seconds] = c.lifecycle.preStop.exec.command
    expect(sleep).toBe('sleep')
    const grace = Number(envOf(c, 'SVC_SHUTDOWN_GRACE_S') ?? FIELDS.shutdown_grace_s.default)
    const margins = (WORKER_KILL_MARGIN_MS + SIDECAR_STOP_GRACE_MS + GUARD_EXTRA_MS) / 1000
    expect(margins).toBe(8)
    expect(podSpec(find('Deployment', 'svc')).terminationGracePeriodSeconds).toBe(Number(seconds) + grace + margins + 2)
  })

  it("svc's idle keep-alive outlasts ingress-nginx's idle upstream connections (60 s), so the ingress never sends on one svc is closing", () => {
    const keepalive = Number(envOf(svcContainer(), 'SVC_GATEWAY_KEEPALIVE_TIMEOUT_S') ?? FIELDS.gateway_keepalive_timeout_s.default)
    expect(keepalive).toBeGreaterThan(60)
  })

  it('memory request covers the measured idle RSS of the tree (~390 MiB)', () => {
    const { requests, limits } = svcContainer().resources
    expect(requests.memory).toBe('400Mi')
    expect(Number.parseInt(limits.memory)).toBeGreaterThanOrEqual(1)
    expect(requests.cpu).toMatch(/^\d+m$/)
  })

  it('Redis: SVC_REDIS_URL from the svc-redis Secret that redis.yaml provides', () => {
    const ref = svcContainer().env.find((e) => e.name === 'SVC_REDIS_URL')?.valueFrom?.secretKeyRef
    expect(ref).toMatchObject({ name: 'svc-redis', key: 'url' })
    const secret = find('Secret', 'svc-redis') as Manifest & { stringData: Record<string, string> }
    const url = new URL(secret.stringData[ref!.key]!)
    const redisService = find('Service', url.hostname)
    expect((redisService.spec.ports as { port: number }[])[0]!.port).toBe(Number(url.port))
    const redis = find('Deployment', url.hostname)
    expect(redisService.spec.selector).toEqual((redis.spec.selector as { matchLabels: unknown }).matchLabels)
  })

  it('Redis requires a password: redis-server gets requirepass from the Secret, the URL svc uses carries the same one, the probe authenticates', () => {
    const secret = find('Secret', 'svc-redis') as Manifest & { stringData: Record<string, string> }
    const password = secret.stringData.password!
    expect(password.length).toBeGreaterThanOrEqual(16)
    expect(decodeURIComponent(new URL(secret.stringData.url!).password)).toBe(password)
    const redis = podSpec(find('Deployment', 'svc-redis')).containers.find((c) => c.name === 'redis')!
    const fromSecret = (name: string) => redis.env.find((e) => e.name === name)?.valueFrom?.secretKeyRef
    expect(fromSecret('REDIS_PASSWORD')).toEqual({ name: 'svc-redis', key: 'password' })
    // Kubernetes expands $(REDIS_PASSWORD) in args from the container's env.
    const i = redis.args.indexOf('--requirepass')
    expect(redis.args[i + 1]).toBe('$(REDIS_PASSWORD)')
    // `redis-cli ping` in the readiness probe reads REDISCLI_AUTH; without it every probe fails (NOAUTH).
    expect(fromSecret('REDISCLI_AUTH')).toEqual({ name: 'svc-redis', key: 'password' })
  })

  it('Service selects the Deployment pods; Ingress routes to the Service with cookie affinity and WebSocket timeouts', () => {
    const deployment = find('Deployment', 'svc')
    const service = find('Service', 'svc')
    const labels = (deployment.spec.template as { metadata: { labels: Record<string, string> } }).metadata.labels
    expect(labels).toMatchObject(service.spec.selector as Record<string, string>)
    expect((service.spec.ports as { targetPort: string }[])[0]!.targetPort).toBe('http')
    const ingress = find('Ingress', 'svc')
    const a = ingress.metadata.annotations!
    expect(a['nginx.ingress.kubernetes.io/affinity']).toBe('cookie')
    expect(a['nginx.ingress.kubernetes.io/session-cookie-name']).toBeTruthy()
    expect(Number(a['nginx.ingress.kubernetes.io/proxy-read-timeout'])).toBeGreaterThanOrEqual(3600)
    expect(Number(a['nginx.ingress.kubernetes.io/proxy-send-timeout'])).toBeGreaterThanOrEqual(3600)
    expect(a['nginx.ingress.kubernetes.io/proxy-next-upstream']).not.toMatch(/non_idempotent/)
    expect(ingress.spec.ingressClassName).toBe('nginx')
    const backend = (ingress.spec.rules as { http: { paths: { backend: { service: { name: string; port: { name: string } } } }[] } }[])[0]!.http.paths[0]!.backend
    expect(backend.service).toEqual({ name: 'svc', port: { name: 'http' } })
    const pdb = find('PodDisruptionBudget', 'svc')
    expect((pdb.spec.selector as { matchLabels: unknown }).matchLabels).toEqual(service.spec.selector)
  })
})
