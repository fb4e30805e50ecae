/**
 * Optional dependencies loaded on first use (e.g. the `highs` WebAssembly LP/MIP solver). The caller keeps
 * the dynamic `import()` in its own package, so bundlers resolve (or skip) the specifier where it is used;
 * this helper only memoises the load and turns a failure into a typed error. No Node built-ins.
 */
import { ErrorCode, RouteKitError } from "./errors.js";

/** A memoised lazy loader of one optional dependency. */
export interface OptionalDependency<T> {
  /** Loads the dependency once and returns it; MISSING_DEPENDENCY when the import fails (retried on the next call). */
  load(): Promise<T>;
  /** The loaded value, or undefined before a successful `load` (or after `set(undefined)`). */
  get(): T | undefined;
  /** Replaces the loaded value (an instance the application created itself, or undefined to forget it). */
  set(value: T | undefined): void;
}

export interface OptionalDependencyOptions<T> {
  /** The npm package name, shown in the install hint. */
  name: string;
  /** What needs it, shown in the error ("the assortment LP"). */
  purpose: string;
  /** Performs the dynamic import, e.g. `() => import("highs")`. */
  importer: () => Promise<unknown>;
  /** Turns the imported module into the value (may be async, e.g. instantiate WebAssembly). Default: the module. */
  init?: (module: unknown) => T | Promise<T>;
}

/**
 * A memoised loader for an optional dependency. A failed import rejects with RouteKitError MISSING_DEPENDENCY
 * naming the package and `npm install <name>`; a failed `init` (installed, but e.g. its WebAssembly could not be
 * instantiated) with the same code saying it failed to load; the next `load()` tries again.
 */
export function optionalDependency<T>(options: OptionalDependencyOptions<T>): OptionalDependency<T> {
  const { name, purpose, importer } = options;
  const init = options.init ?? ((m: unknown) => m as T);
  let value: T | undefined;
  let pending: Promise<T> | undefined;
  return {
    load(): Promise<T> {
      if (value !== undefined) return Promise.resolve(value);
      if (!pending) {
        const why = (e: unknown) => (e instanceof Error ? e.message : String(e));
        pending = Promise.resolve()
          .then(importer)
          .then(
            (m) =>
              // Installed, but its initialisation failed (e.g. WebAssembly out of memory): "npm install" would not help.
              Promise.resolve()
                .then(() => init(m))
                .catch((e: unknown) => {
                  throw new RouteKitError(
                    ErrorCode.MissingDependency,
                    `${purpose}: the optional dependency "${name}" is installed but failed to load: ${why(e)}`,
                  );
                }),
            (e: unknown) => {
              throw new RouteKitError(
                ErrorCode.MissingDependency,
                `${purpose} needs the optional dependency "${name}" (npm install ${name}): ${why(e)}`,
              );
            },
          )
          .then(
            (v) => {
              value = v;
              return v;
            },
            (e: unknown) => {
              pending = undefined;
              throw e;
            },
          );
      }
      return pending;
    },
    get: () => value,
    set(v: T | undefined): void {
      value = v;
      pending = undefined;
    },
  };
}

/** `init` for modules whose default export (or the module itself) is an async factory, like `highs`. */
export async function callDefaultExport<T>(module: unknown): Promise<T> {
  const mod = module as { default?: unknown };
  const factory = typeof mod.default === "function" ? mod.default : module;
  if (typeof factory !== "function") throw new Error("the module exports no loader function");
  return (await (factory as () => T | Promise<T>)()) as T;
}
