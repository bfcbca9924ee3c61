import { runCommand } from './processes.js';

export interface SeededOrg {
  orgId: string;
  apiKey: string;
  /** The project the alerts are in. */
  projectId: string;
}

const severities = ['critical', 'high', 'medium', 'low', 'info'] as const;

async function vigil(args: string[], env: Record<string, string>): Promise<Record<string, unknown>> {
  return JSON.parse(await runCommand(['packages/server/bin/vigil.js', ...args, '--json'], env)) as Record<string, unknown>;
}

async function post(baseUrl: string, apiKey: string, path: string, body: unknown): Promise<{ data: { id: string } }> {
  const response = await fetch(`${baseUrl}/api/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`POST ${path} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as { data: { id: string } };
}

/**
 * Through Vigil's own front doors, as an operator and a client would: the CLI makes an enterprise
 * organization with a per-minute limit no benchmark reaches, the REST API its project and alerts.
 */
export async function seedAlerts(baseUrl: string, vigilEnv: Record<string, string>, alertCount: number): Promise<SeededOrg> {
  const created = await vigil(['org', 'create', '--name', 'Bench', '--plan', 'enterprise', '--admin-email', 'bench@example.com'], vigilEnv);
  const orgId = (created.org as { id: string }).id;
  const apiKey = String(created.apiKey);
  await vigil(['org', 'set-rate-limit', orgId, '1000000'], vigilEnv);
  const project = await post(baseUrl, apiKey, '/projects', { name: 'Bench project', area: 'north' });
  for (let index = 0; index < alertCount; index++) {
    await post(baseUrl, apiKey, '/alerts', {
      projectId: project.data.id,
      title: `Temperature above threshold on sensor ${index + 1}`,
      description: 'Reading stayed above the threshold for five minutes.',
      severity: severities[index % severities.length],
      area: 'north',
      value: String(70 + index),
      threshold: '70',
    });
  }
  return { orgId, apiKey, projectId: project.data.id };
}
