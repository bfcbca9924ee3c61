/**
 * Each project's data (uploaded and imported datasets) lives in a PostgreSQL schema of its own,
 * named from the project id, so a project's tables can be granted, searched and dropped as one.
 */
export function projectSchemaName(projectId: string): string {
  if (!/^proj_[0-9a-z]{26}$/.test(projectId)) throw new Error(`not a project id: ${projectId}`);
  return `data_${projectId.slice('proj_'.length)}`;
}

/**
 * The statement that serialises, per project, the grants to its read role with the changes to its
 * schema (creating it, dropping a table): a GRANT on a table that another transaction is dropping
 * fails ("tuple concurrently deleted"). The lock lasts until the transaction ends; in a script of
 * statements sent at once, until the script's implicit transaction ends.
 */
export function lockProjectSchemaSql(schema: string): string {
  return `SELECT pg_advisory_xact_lock(hashtext('project-schema:${schema.replaceAll("'", "''")}'))`;
}
