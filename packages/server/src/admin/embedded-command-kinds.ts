/**
 * The embedded-installation commands by name, apart from their implementation (embedded-commands.ts):
 * the CLI parses with these and loads that module, which brings PGlite, pg and tar with it, only to run one.
 */
export type EmbeddedCommand = { kind: 'migrate-to-postgres'; to: string } | { kind: 'backup'; out: string } | { kind: 'restore'; from: string };

export const embeddedCommandNames = new Set<string>(['migrate-to-postgres', 'backup', 'restore']);

export function isEmbeddedCommand(command: { kind: string }): command is EmbeddedCommand {
  return embeddedCommandNames.has(command.kind);
}
