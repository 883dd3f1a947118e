/**
 * Where an MCP connection's kernels work (issue 42, defect 5), in process with real kernels: the
 * client's roots when it offers them (the first the cwd, the others writable in the sandbox; new
 * roots for sessions opened after notifications/roots/list_changed), else --cwd; `/` and the home
 * folder are refused as the writable workspace with a sentence saying what to pass.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type CallToolResult, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/eval/settings.js';
import { McpConnection } from '../../src/modes/mcp/connection.js';

const open: { client: Client; connection: McpConnection }[] = [];
afterEach(async () => {
  for (const { client, connection } of open.splice(0)) {
    await client.close();
    await connection.close();
  }
});

const tempDir = async (name: string) => realpath(await mkdtemp(join(tmpdir(), `omp-mcp-ws-${name}-`)));

/** A connection whose server was started in `cwd`, with the sandbox writing the workspace. */
async function connect(cwd: string, opts: { home?: string; roots?: () => string[] } = {}) {
  const connection = new McpConnection({
    settings: {
      ...DEFAULT_SETTINGS,
      'sandbox.mode': 'workspace-write',
      'python.interpreter': '/usr/bin/python3',
    },
    cwd,
    home: opts.home ?? '/nonexistent-home',
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await connection.server.connect(serverSide);
  const client = new Client(
    { name: 'mcp-workspace-test', version: '1' },
    { capabilities: opts.roots ? { roots: { listChanged: true } } : {} },
  );
  const listed: number[] = [];
  if (opts.roots) {
    const roots = opts.roots;
    client.setRequestHandler(ListRootsRequestSchema, () => {
      listed.push(1);
      return { roots: roots().map((dir, i) => ({ uri: pathToFileURL(dir).href, name: `root ${i}` })) };
    });
  }
  await client.connect(clientSide);
  open.push({ client, connection });
  const py = async (code: string, session = 'default') =>
    (await client.callTool({
      name: 'eval',
      arguments: { session, cells: [{ language: 'py', code }] },
    })) as CallToolResult;
  return { client, py, listed };
}

const textOf = (r: CallToolResult) => (r.content[0] as { text: string }).text;

describe('the workspace of an MCP connection', { timeout: 120_000 }, () => {
  it('refuses / as the writable workspace, saying to pass --cwd', async () => {
    const { py } = await connect('/');
    const r = await py('1 + 1');
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(
      /^The working directory \/ is the root of the file system \(the client started omp-eval mcp there\): omp-eval mcp will not make it the kernels' writable workspace\. Pass the project's folder with --cwd/,
    );
  });

  it('refuses the home folder as the writable workspace', async () => {
    const home = await tempDir('home');
    const { py } = await connect(home, { home });
    const r = await py('1 + 1');
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain(`The working directory ${home} is your home folder`);
    expect(textOf(r)).toMatch(/--cwd/);
  });

  it("works in the client's first root and may write its other roots; new roots are for new sessions", async () => {
    const [first, second, later] = [await tempDir('first'), await tempDir('second'), await tempDir('later')];
    let roots = [first, second];
    const { client, py, listed } = await connect('/', { roots: () => roots });
    const where = await py(
      `import os\nopen(${JSON.stringify(join(second, 'made.txt'))}, "w").write("x")\nprint(os.getcwd())`,
    );
    expect(textOf(where)).toBe(first);
    expect(existsSync(join(second, 'made.txt'))).toBe(true);
    expect(listed.length).toBe(1);
    // (the sandbox holds: a folder that is no root is not writable)
    const outside = await py(`open(${JSON.stringify(join(later, 'no.txt'))}, "w")`);
    expect(textOf(outside)).toMatch(/Read-only file system|Permission/);
    // Not asked again while they stand.
    await py('1', 'another');
    expect(listed.length).toBe(1);

    roots = [later];
    await client.sendRootsListChanged();
    expect(textOf(await py('import os; print(os.getcwd())', 'new'))).toBe(later);
    expect(listed.length).toBe(2);
    // A session opened before keeps its folder.
    expect(textOf(await py('print(os.getcwd())'))).toBe(first);
  });

  it("refuses a client's root that is the home folder", async () => {
    const home = await tempDir('home-root');
    await mkdir(join(home, 'project'));
    const { py } = await connect('/', { home, roots: () => [home] });
    const r = await py('1');
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain(`The client's first root, ${home}, is your home folder`);
  });
});
