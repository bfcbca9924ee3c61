import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './ports.js';
import { waitFor } from './webhooks/wait.js';

/** Debian's package installs Alertmanager under this name; upstream's tarball calls it `alertmanager`. */
const candidates = ['/usr/bin/prometheus-alertmanager', '/usr/local/bin/alertmanager', '/usr/bin/alertmanager'];

export const alertmanagerBinary = candidates.find((candidate) => existsSync(candidate));
export const alertmanagerInstallHint = 'install it with `apt-get install prometheus-alertmanager` (Debian/Ubuntu)';

/** CI installs Alertmanager (.ci/run), so there a missing binary fails the test instead of skipping it. */
export function alertmanagerRequired(): boolean {
  if (alertmanagerBinary === undefined && process.env.CI === 'true') {
    throw new Error(`CI=true but Alertmanager is not installed: ${alertmanagerInstallHint}`);
  }
  return alertmanagerBinary !== undefined;
}

/** An alert as Alertmanager's API v2 takes it (POST /api/v2/alerts). */
export interface PostableAlert {
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  startsAt?: string;
  endsAt?: string;
  generatorURL?: string;
}

export interface GettableAlert extends PostableAlert {
  fingerprint: string;
  status: { state: string };
}

export interface AlertmanagerProcess {
  url: string;
  /** Sends alerts to Alertmanager as Prometheus does. */
  post(alerts: PostableAlert[]): Promise<void>;
  alerts(): Promise<GettableAlert[]>;
  stop(): Promise<void>;
}

/** A real Alertmanager on a free loopback port with `config` (YAML), alone: no cluster, its own storage. */
export async function startAlertmanager(config: string): Promise<AlertmanagerProcess> {
  if (!alertmanagerBinary) throw new Error(`Alertmanager is not installed: ${alertmanagerInstallHint}`);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vigil-alertmanager-'));
  const configFile = path.join(dir, 'alertmanager.yml');
  await writeFile(configFile, config);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const child: ChildProcess = spawn(
    alertmanagerBinary,
    [`--config.file=${configFile}`, `--storage.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--cluster.listen-address='],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  const ready = async () => {
    if (child.exitCode !== null) throw new Error(`Alertmanager exited ${child.exitCode}:\n${output}`);
    return fetch(`${url}/-/ready`).then((response) => response.ok, () => false);
  };
  try {
    await waitFor(ready, Boolean, 'Alertmanager to be ready', 15_000);
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n${output}`);
  }
  return {
    url,
    async post(alerts) {
      const response = await fetch(`${url}/api/v2/alerts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(alerts) });
      if (!response.ok) throw new Error(`Alertmanager refused the alerts: ${response.status} ${await response.text()}`);
    },
    async alerts() {
      return (await (await fetch(`${url}/api/v2/alerts`)).json()) as GettableAlert[];
    },
    stop,
  };
}
