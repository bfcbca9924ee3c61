import type { CreateAlert, Severity } from '../alerts/schema.js';
import type { AlertmanagerAlert } from './schema.js';

/**
 * The `severity` label's usual values (Prometheus rules, kube-prometheus, PagerDuty and Opsgenie
 * conventions), lowercase, onto Vigil's five; docs/integrations.md shows this table.
 */
export const severityLabels: Record<Severity, readonly string[]> = {
  critical: ['critical', 'crit', 'fatal', 'emergency', 'emerg', 'alert', 'page', 'disaster', 'p1', 'sev1'],
  high: ['high', 'error', 'err', 'major', 'p2', 'sev2'],
  medium: ['warning', 'warn', 'medium', 'moderate', 'average', 'p3', 'sev3'],
  low: ['low', 'minor', 'p4', 'sev4'],
  info: ['info', 'informational', 'notice', 'debug', 'none', 'ok', 'p5', 'sev5'],
};

/** No `severity` label, or one of no known meaning: Alertmanager's own PagerDuty receiver sends `error` then. */
export const defaultSeverity: Severity = 'high';

const severityOfLabel = new Map(Object.entries(severityLabels).flatMap(([severity, labels]) => labels.map((label) => [label, severity as Severity])));

export function severityOf(label: string | undefined): Severity {
  return severityOfLabel.get((label ?? '').trim().toLowerCase()) ?? defaultSeverity;
}

const maxTitle = 500;
const maxDescription = 10_000;

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
const lines = (heading: string, set: Record<string, string>) => {
  const entries = Object.entries(set).sort(([a], [b]) => a.localeCompare(b));
  return entries.length === 0 ? [] : [heading, ...entries.map(([name, value]) => `  ${name}: ${value}`)];
};

/**
 * A firing Alertmanager alert as the body of POST /alerts: its fingerprint is the dedupKey (so
 * every repeat of it counts on one Vigil alert), the title is `alertname: summary`, and the
 * description carries the annotations' own description, every label and annotation, and the link
 * back to the rule (generatorURL).
 */
export function alertFromAlertmanager(projectId: string, alert: AlertmanagerAlert): CreateAlert {
  const annotations = alert.annotations ?? {};
  const name = alert.labels.alertname ?? 'Alertmanager alert';
  const title = annotations.summary ? `${name}: ${annotations.summary}` : name;
  const description = [
    ...(annotations.description ? [annotations.description, ''] : []),
    ...lines('Labels:', alert.labels),
    ...lines('Annotations:', annotations),
    ...(alert.startsAt ? [`Firing since: ${alert.startsAt}`] : []),
    ...(alert.generatorURL ? [`Source: ${alert.generatorURL}`] : []),
  ].join('\n');
  return {
    projectId,
    title: clip(title, maxTitle),
    severity: severityOf(alert.labels.severity),
    description: clip(description, maxDescription),
    dedupKey: alert.fingerprint,
  };
}
