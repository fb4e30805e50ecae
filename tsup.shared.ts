import type { Options } from "tsup";

type TsupPlugin = NonNullable<Options["plugins"]>[number];

/**
 * Marks esbuild's statement-level `__name(...)` calls (after a function declaration, and in a class's
 * `static { __name(this, "X"); }` block) `/* @__PURE__ *\/`, as esbuild already marks the expression-level ones.
 * Without the mark, a bundler that reads our dist (esbuild, Rollup, webpack) sees a call with side effects on
 * every function and class, keeps them all and their dependencies, and tree shaking is gone: the browser bundle
 * of one @routekit/classic policy grew from 108 to 427 KB. Only lines that start with the call are touched,
 * so the source maps stay right but for the columns of those lines.
 */
const pureNames: TsupPlugin = {
  name: "routekit-pure-names",
  renderChunk(code, info) {
    if (!/\.c?js$/.test(info.path)) return;
    return { code: code.replace(/^(\s*)__name\(/gm, "$1/* @__PURE__ */ __name(") };
  },
};

/**
 * Class and function names as written: esbuild otherwise names a class that refers to itself `_Name`
 * (`var UCB1 = class _UCB1`), which `constructor.name`, `console.log` and stack traces then show. keepNames also
 * wraps every named function expression in `__name(fn, "fn")` (an `Object.defineProperty` per closure created):
 * keep closures out of per-round, per-node and per-iteration code.
 */
export const keepNamesOptions = {
  keepNames: true,
  plugins: [pureNames],
} satisfies Options;
