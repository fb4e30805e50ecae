/**
 * `@routekit/core/node`: the parts of core that need Node built-ins (worker threads, the file system: reading
 * logs of any size, writing files atomically).
 * The main entry `@routekit/core` has none, so algorithm packages bundle for browsers and edge runtimes.
 */

export * from "./read-lines.js";
export * from "./workers.js";
export * from "./write-file-atomic.js";
