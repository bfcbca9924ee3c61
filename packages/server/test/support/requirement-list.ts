/*
 * The parts of a machine some tests need beyond Node and npm, and the one command that provides
 * each: shared by the groups that ask for them (requirements.ts) and the report that lists what a
 * run skipped (test-report.ts).
 */

export type Requirement = 'postgres' | 'redis' | 'mariadb' | 'chromium' | 'python' | 'alertmanager' | 'promtool' | 'postgres-server';

export interface RequirementInfo {
  what: string;
  /** The one command that enables the group. */
  enable: string;
}

export const requirements: Record<Requirement, RequirementInfo> = {
  postgres: {
    what: 'PostgreSQL (the suites run on PGlite only)',
    enable: 'export VIGIL_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test   # a PostgreSQL 15+ whose user may create databases and roles',
  },
  redis: { what: 'Redis', enable: 'export VIGIL_TEST_REDIS_URL=redis://127.0.0.1:6379   # a running redis-server (apt-get install redis-server)' },
  mariadb: { what: 'MariaDB/MySQL imports', enable: 'export VIGIL_TEST_MYSQL_URL=mysql://root@127.0.0.1:3306   # a running MariaDB (apt-get install mariadb-server)' },
  chromium: { what: 'Chromium (browser tests)', enable: 'sudo apt-get install chromium   # Debian\'s /usr/bin/chromium; no browser is downloaded' },
  python: {
    what: 'the Python packages (Python client and docs examples)',
    enable: 'sudo apt-get install python3-httpx python3-pytest python3-pytest-asyncio python3-flask python3-hatchling',
  },
  alertmanager: { what: 'Prometheus Alertmanager', enable: 'sudo apt-get install prometheus-alertmanager' },
  promtool: { what: 'promtool (the /metrics format check)', enable: 'sudo apt-get install prometheus' },
  'postgres-server': { what: 'PostgreSQL server binaries (a private server the test restarts)', enable: 'sudo apt-get install postgresql' },
};

export const skipLogVariable = 'VIGIL_TEST_SKIP_LOG';

export interface SkipRecord {
  requirement: Requirement;
  file: string;
  group: string;
}
