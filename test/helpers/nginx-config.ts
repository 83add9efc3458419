/**
 * nginx's main config for one worker run from `dir` (pid, error log and temp files all inside
 * it; no access log), with `http` inside the `http` block: the skeleton the tests' nginx
 * (test/helpers/nginx.ts) and the benchmarks' (bench/lib/servers.ts, bench/static.ts) share.
 * It imports nothing, so a benchmark can use it without the test helpers' dependencies.
 */
export function nginxMainConfig(dir: string, http: string, workerConnections = 256): string {
  return `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections ${workerConnections}; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  ${http}
}
`
}
