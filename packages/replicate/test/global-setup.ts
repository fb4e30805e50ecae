import { ensureRedisServer } from "../src/server.js";

// Installs Debian's redis-server once, before any test file starts one (parallel apt-get runs would
// fight over dpkg's lock).
export default function setup(): void {
  ensureRedisServer();
}
