// Bug: the published schemas say additionalProperties: false, but the zod objects are not .strict(), and
// zod's default strips unknown keys: {"sku": ..., "is_admin": true} is served as if is_admin were not there.
import { z } from "zod";
import { makeServer, serve, sku } from "./inventory.mjs";

await serve(
  makeServer({
    get_item: z.object({ sku }), // THE BUG: not .strict()
    add_stock: z.object({ sku, qty: z.number().int().min(1).max(1000) }), // THE BUG: not .strict()
  }),
);
