/**
 * omp-eval's version, as `--version` prints it and the MCP server names itself. package.json's
 * `version` is the source; `test/unit/version.test.ts` fails when the two differ (reading
 * package.json at run time would cost every start a file read and a path that differs between the
 * sources and the bundle).
 */
export const VERSION = '0.1.0';
