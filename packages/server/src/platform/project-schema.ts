/**
 * Each project's data (uploaded and imported datasets) lives in a PostgreSQL schema of its own,
 * named from the project id, so a project's tables can be granted, searched and dropped as one.
 */
export function projectSchemaName(projectId: string): string {
  if (!/^proj_[0-9a-z]{26}$/.test(projectId)) throw new Error(`not a project id: ${projectId}`);
  return `data_${projectId.slice('proj_'.length)}`;
}
