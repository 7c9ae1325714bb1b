// Copies mqtt.js's browser bundle into vendor/ so the page needs no npm and no CDN at run time.
// Run: `cd spectator && npm install && npm run build` (the result, vendor/mqtt.min.js, is committed).
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = JSON.parse(readFileSync(join(here, "node_modules", "mqtt", "package.json"), "utf8"));
mkdirSync(join(here, "vendor"), { recursive: true });
copyFileSync(join(here, "node_modules", "mqtt", "dist", "mqtt.min.js"), join(here, "vendor", "mqtt.min.js"));
console.log(`vendor/mqtt.min.js <- mqtt ${pkg.version}`);
