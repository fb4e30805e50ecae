/**
 * `@routekit/core/node`: the parts of core that need Node built-ins (worker threads, the file system).
 * The main entry `@routekit/core` has none, so algorithm packages bundle for browsers and edge runtimes.
 */

export * from "./read-lines.js";
export * from "./workers.js";
