// The official TypeScript SDK's stateless streamable-HTTP server, in the shape of its own
// example (examples/server/simpleStatelessStreamableHttp): a new McpServer and a new
// transport for every POST, no session id, here with JSON answers. On Node it is the
// example's Express app (createMcpExpressApp + StreamableHTTPServerTransport); on Bun it is
// Bun.serve with the SDK's WebStandardStreamableHTTPServerTransport, the runtime's own server.
// Public API only. Two tools: add(a, b) and lookup(key), the I/O-bound tool of
// bench_peers.py (one Redis GET with the npm `redis` client, one fetch() from the HTTP API
// at BENCH_API_URL, merged into one JSON text).
//
//   node22 ts_sdk_server.mts --port N      or      bun ts_sdk_server.mts --port N
// (run from a folder whose node_modules holds @modelcontextprotocol/sdk, redis and zod)

import { createMcpExpressApp } from "@modelcontextprotocol/sdk/server/express.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { createClient } from "redis";
import * as z from "zod/v4";

const portFlag = process.argv.indexOf("--port");
const PORT = portFlag > 0 ? Number(process.argv[portFlag + 1]) : 3000;
const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379/0";
const API_URL = process.env.BENCH_API_URL ?? "http://127.0.0.1:8080";

// One Redis connection for the process, opened on the first lookup.
let store: Promise<ReturnType<typeof createClient>> | undefined;
function redisClient() {
  store ??= createClient({ url: REDIS_URL }).connect();
  return store;
}

function getServer(): McpServer {
  const server = new McpServer({ name: "bench", version: "1.0.0" });
  server.registerTool(
    "add",
    {
      description: "Add two integers.",
      inputSchema: { a: z.number().int(), b: z.number().int() },
    },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );
  server.registerTool(
    "lookup",
    {
      description: "Read an item from Redis and from the HTTP API.",
      inputSchema: { key: z.string() },
    },
    async ({ key }) => {
      const cached = await (await redisClient()).get(`item:${key}`);
      const response = await fetch(`${API_URL}/items/${key}`);
      if (!response.ok) throw new Error(`HTTP API answered ${response.status}`);
      const remote = await response.json();
      return { content: [{ type: "text", text: JSON.stringify({ key, cached, remote }) }] };
    },
  );
  return server;
}

const bun = (globalThis as any).Bun;
if (bun) {
  bun.serve({
    hostname: "127.0.0.1",
    port: PORT,
    async fetch(request: Request): Promise<Response> {
      if (new URL(request.url).pathname !== "/mcp") return new Response(null, { status: 404 });
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await getServer().connect(transport);
      return transport.handleRequest(request);
    },
  });
} else {
  const app = createMcpExpressApp();
  app.post("/mcp", async (req: any, res: any) => {
    const server = getServer();
    try {
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
      res.on("close", () => {
        transport.close();
        server.close();
      });
    } catch (error) {
      console.error("error handling an MCP request:", error);
      if (!res.headersSent) {
        res.status(500).json({
          jsonrpc: "2.0",
          error: { code: -32603, message: "Internal server error" },
          id: null,
        });
      }
    }
  });
  app.listen(PORT, "127.0.0.1");
}
console.error(`listening on 127.0.0.1:${PORT}`);
