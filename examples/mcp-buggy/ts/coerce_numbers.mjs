// Bug: qty is parsed with z.coerce.number(), "because some clients send numbers as strings": the published
// schema says integer, but "100" becomes 100 and true becomes 1, and both are added to the stock.
import { z } from "zod";
import { makeServer, serve, sku, strictParsers } from "./inventory.mjs";

await serve(
  makeServer({
    ...strictParsers,
    add_stock: z.object({ sku, qty: z.coerce.number().int().min(1).max(1000) }).strict(), // THE BUG: coerce
  }),
);
