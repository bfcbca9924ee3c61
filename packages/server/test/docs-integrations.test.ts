// docs/integrations.md's examples, run as written: the client examples against a real server, the
// Prometheus and Alertmanager configurations through promtool and amtool (the Alertmanager
// configuration also runs a real Alertmanager in alertmanager.real.test.ts).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { docsExample } from './support/docs-examples.js';
import { repoRoot } from './support/processes.js';
import { createProject } from './support/resources.js';

const run = promisify(execFile);
const page = 'integrations.md';
const promtool = '/usr/bin/promtool';
const amtool = '/usr/bin/amtool';
const toolsInstalled = existsSync(promtool) && existsSync(amtool);
if (!toolsInstalled && process.env.CI === 'true') {
  throw new Error('CI=true but promtool/amtool are not installed: apt-get install prometheus prometheus-alertmanager');
}

describe('docs/integrations.md against a real server: both clients sending with a dedupKey, the metrics the rules read', () => {
  let t: TestApp;
  let org: TestOrg;

  beforeAll(async () => {
    t = await startTestApp('pglite');
    org = await t.createOrg('business');
  });
  afterAll(() => t.close());

  /** Runs the example twice in a project of its own, and splits what each run printed. */
  const twice = async (command: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}) => {
    const project = await createProject(t, org, command);
    const env = { ...process.env, VIGIL_API_KEY: org.apiKey, VIGIL_BASE_URL: `${t.baseUrl}/api/v1`, VIGIL_PROJECT_ID: project.id, ...extraEnv };
    const outputs: string[][] = [];
    for (let time = 0; time < 2; time++) {
      const { stdout } = await run(command, args, { cwd: repoRoot, env });
      outputs.push(stdout.trim().split(' '));
    }
    return outputs;
  };

  it('the TypeScript example: the second run repeats the first alert', async () => {
    // --eval resolves @vigil/client from the working directory: the repository's own workspace package.
    const [[firstId, firstCount], [secondId, secondCount]] = await twice(process.execPath, ['--input-type=module', '--eval', docsExample('typescript-dedup', page)]);
    expect(firstId).toMatch(/^alrt_/);
    expect([secondId, firstCount, secondCount]).toEqual([firstId, '1', '2']);
  });

  it('the Python example: the second run repeats the first alert', async () => {
    const [[firstId, firstCount], [secondId, secondCount]] = await twice('/usr/bin/python3', ['-c', docsExample('python-dedup', page)], {
      PYTHONPATH: path.join(repoRoot, 'clients/python/src'),
      PYTHONDONTWRITEBYTECODE: '1',
    });
    expect(firstId).toMatch(/^alrt_/);
    expect([secondId, firstCount, secondCount]).toEqual([firstId, '1', '2']);
  });

  it('every vigil_ metric of the rules, with the label they select on, is in GET /metrics', async () => {
    await t.request('GET', '/api/v1/alerts');
    const metrics = String((await t.request<string>('GET', '/metrics')).body);
    const used = [...new Set(docsExample('prometheus-rules', page).match(/vigil_[a-z_]+/g))];
    expect(used.sort()).toEqual(['vigil_http_requests_total', 'vigil_log_lines_dropped_total', 'vigil_webhook_oldest_due_age_seconds']);
    for (const metric of used) expect(metrics, metric).toMatch(new RegExp(`^# TYPE ${metric} `, 'm'));
    expect(metrics).toMatch(/^vigil_http_requests_total\{[^}]*status="401"[^}]*\} \d+/m);
  });
});

/** What Prometheus's rule unit test feeds the documented rules, and the alerts it must see. */
const rulesTest = `rule_files: [vigil-rules.yml]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'vigil_webhook_oldest_due_age_seconds{job="vigil",instance="api-1:443"}'
        values: '0 0 400x15'
      - series: 'vigil_webhook_oldest_due_age_seconds{job="vigil",instance="api-2:443"}'
        values: '0 0 400x15'
      - series: 'vigil_http_requests_total{job="vigil",instance="api-1:443",method="GET",route="/api/v1/alerts",status="200"}'
        values: '0+90x30'
      - series: 'vigil_http_requests_total{job="vigil",instance="api-1:443",method="GET",route="/api/v1/alerts",status="503"}'
        values: '0+10x30'
      - series: 'vigil_log_lines_dropped_total{job="vigil",instance="api-1:443"}'
        values: '0x10 0+500x5 2500x20'
      - series: 'vigil_log_lines_dropped_total{job="vigil",instance="api-2:443"}'
        values: '0x35'
    alert_rule_test:
      - eval_time: 4m
        alertname: VigilWebhookBacklog
        exp_alerts: []
      - eval_time: 10m
        alertname: VigilWebhookBacklog
        exp_alerts:
          - exp_labels: {severity: warning, job: vigil}
            exp_annotations:
              summary: Webhook deliveries have waited over 5 minutes
              description: The oldest due webhook delivery has been waiting 6m 40s. Check that worker processes (VIGIL_ROLE=worker or all) are running and reach the receivers.
      - eval_time: 5m
        alertname: VigilHighServerErrorRate
        exp_alerts: []
      - eval_time: 20m
        alertname: VigilHighServerErrorRate
        exp_alerts:
          - exp_labels: {severity: critical, job: vigil}
            exp_annotations:
              summary: Over 5% of Vigil's answers are server errors
              description: 10% of requests answered 5xx over the last 5 minutes. The logs have each one with its request id.
      - eval_time: 10m
        alertname: VigilLogLinesDropped
        exp_alerts: []
      - eval_time: 12m
        alertname: VigilLogLinesDropped
        exp_alerts:
          - exp_labels: {severity: warning, job: vigil, instance: 'api-1:443'}
            exp_annotations:
              summary: A Vigil process is dropping its log lines
              description: "Nothing took api-1:443's standard output while 16 MiB of lines waited, so it drops new ones. Check what reads it (the log shipper, the container runtime); the process logs how many it dropped once its output takes lines again."
      - eval_time: 30m
        alertname: VigilLogLinesDropped
        exp_alerts: []
`;

describe.runIf(toolsInstalled)('docs/integrations.md: the Prometheus and Alertmanager configurations', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'vigil-docs-prometheus-'));
    await writeFile(path.join(dir, 'vigil-metrics-token'), 'a-metrics-token\n');
    await writeFile(path.join(dir, 'vigil-api-key'), `svc_live_${'0'.repeat(64)}\n`);
    const prometheus = docsExample('prometheus-config', page).replace('/etc/prometheus/vigil-metrics-token', path.join(dir, 'vigil-metrics-token'));
    await writeFile(path.join(dir, 'prometheus.yml'), prometheus);
    await writeFile(path.join(dir, 'vigil-rules.yml'), docsExample('prometheus-rules', page));
    await writeFile(path.join(dir, 'rules.test.yml'), rulesTest);
    const alertmanager = docsExample('alertmanager-config', page).replace('/etc/alertmanager/vigil-api-key', path.join(dir, 'vigil-api-key'));
    await writeFile(path.join(dir, 'alertmanager.yml'), alertmanager);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('promtool accepts the scrape configuration with its rule file', async () => {
    const { stdout } = await run(promtool, ['check', 'config', 'prometheus.yml'], { cwd: dir });
    expect(stdout).toContain('SUCCESS: 3 rules found');
  });

  it('the three rules fire on a webhook backlog, a 5xx rate and dropped log lines, and not before or after', async () => {
    const { stdout } = await run(promtool, ['test', 'rules', 'rules.test.yml'], { cwd: dir });
    expect(stdout).toContain('SUCCESS');
  });

  it('amtool accepts the Alertmanager configuration', async () => {
    const { stdout } = await run(amtool, ['check-config', 'alertmanager.yml'], { cwd: dir });
    expect(stdout).toContain('SUCCESS');
    expect(stdout).toContain('1 receivers');
  });
});
