// The correct TypeScript control: strict zod parsers that say what the published JSON Schemas say.
import { makeServer, serve } from "./inventory.mjs";

await serve(makeServer());
