// Bug: the initialize handler is replaced "to stay compatible with every client" and answers whatever
// protocolVersion the client asked for, including versions of MCP that do not exist.
import { InitializeRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { makeServer, serve } from "./inventory.mjs";

const server = makeServer();
server.setRequestHandler(InitializeRequestSchema, async (request) => ({
  ...(await server._oninitialize(request)),
  protocolVersion: request.params.protocolVersion, // THE BUG: echoed, supported or not
}));
await serve(server);
