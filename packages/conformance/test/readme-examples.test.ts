/**
 * Every complete TypeScript/JavaScript code block of the root README and of every package's README runs as pasted:
 * it is bundled with esbuild (types stripped; @routekit packages resolved as a user's project resolves them, from
 * their built dist) and run with Node; it must exit 0. A block that is deliberately a fragment (it uses names it
 * does not define, or needs the reader's own files) is marked by an HTML comment `<!-- fragment: why -->` on the
 * line before it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../../", import.meta.url));

interface Block {
  readonly file: string;
  readonly line: number;
  readonly lang: string;
  readonly code: string;
  readonly fragment: string | null;
}

/** Fenced ts/js blocks of a Markdown file, with the fragment marker of the line before each. */
export function codeBlocks(file: string, text: string): Block[] {
  const lines = text.split("\n");
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(ts|typescript|js|javascript|mjs)\s*$/.exec(lines[i] as string);
    if (!open) continue;
    let j = i + 1;
    while (j < lines.length && !(lines[j] as string).startsWith("```")) j++;
    let k = i - 1;
    while (k >= 0 && (lines[k] as string).trim() === "") k--;
    const marker = /<!--\s*fragment:?\s*(.*?)\s*-->/.exec(k >= 0 ? (lines[k] as string) : "");
    out.push({
      file,
      line: i + 1,
      lang: open[1] as string,
      code: lines.slice(i + 1, j).join("\n"),
      fragment: marker ? marker[1] || "fragment" : null,
    });
    i = j;
  }
  return out;
}

/** The lines after a block's "// prints:" comment (each "// " line, prefix removed), or null without one. */
export function printedLines(code: string): string[] | null {
  const lines = code.split("\n");
  const at = lines.findIndex((l) => l.trim() === "// prints:");
  if (at < 0) return null;
  const out: string[] = [];
  for (const l of lines.slice(at + 1)) {
    if (!l.startsWith("// ")) break;
    out.push(l.slice(3));
  }
  return out;
}

const readmes = [
  join(root, "README.md"),
  ...["packages", "apps"].flatMap((d) =>
    readdirSync(join(root, d))
      .map((p) => join(root, d, p, "README.md"))
      .filter((f) => existsSync(f)),
  ),
];
const blocks = readmes.flatMap((f) => codeBlocks(f.slice(root.length), readFileSync(f, "utf8")));
const runnable = blocks.filter((b) => b.fragment === null);

describe("README code blocks", () => {
  it("finds the blocks (the extractor works)", () => {
    expect(runnable.length).toBeGreaterThanOrEqual(6);
    expect(codeBlocks("x.md", "a\n<!-- fragment: uses x -->\n```ts\nx;\n```\n```js\nok();\n```\n")).toEqual([
      { file: "x.md", line: 3, lang: "ts", code: "x;", fragment: "uses x" },
      { file: "x.md", line: 6, lang: "js", code: "ok();", fragment: null },
    ]);
  });

  it.each(runnable.map((b) => [`${b.file}:${b.line}`, b] as const))("%s runs as pasted", async (_where, b) => {
    const dir = mkdtempSync(join(tmpdir(), "routekit-readme-"));
    const out = join(dir, "block.mjs");
    // Resolve from the playground, which depends on every library package (workspace links to their dist).
    await build({
      stdin: { contents: b.code, resolveDir: join(root, "apps", "playground"), loader: "ts", sourcefile: b.file },
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      outfile: out,
      logLevel: "silent",
    });
    writeFileSync(join(dir, "package.json"), "{}");
    let stdout: string;
    try {
      stdout = execFileSync(process.execPath, [out], {
        cwd: join(root, "apps", "playground"),
        stdio: ["ignore", "pipe", "pipe"],
        timeout: 60_000,
        encoding: "utf8",
      });
    } catch (e) {
      const err = e as { stderr?: string; message: string };
      throw new Error(
        `${b.file}:${b.line} failed: ${(err.stderr ?? err.message).trim().split("\n").slice(0, 6).join("\n")}`,
      );
    }
    // A block that shows its output (a "// prints:" comment, then one "// " line per printed line) must print it.
    const shown = printedLines(b.code);
    if (shown !== null) expect(stdout.trimEnd().split("\n"), `${b.file}:${b.line} output`).toEqual(shown);
  });
});

describe("README TypeScript blocks type-check", () => {
  // A user pastes a `ts` block into a strict TypeScript project: it must compile against the packages' published
  // types (their dist .d.ts, resolved from the playground, which depends on every library package).
  const typed = runnable.filter((b) => /^(ts|typescript)$/.test(b.lang));
  it("every ts block compiles under strict settings", async () => {
    const ts = (await import("typescript")).default;
    const files = new Map(
      typed.map((b, i) => [
        join(root, "apps", "playground", `__readme_block_${i}.ts`),
        { b, source: `${b.code}\nexport {};\n` },
      ]),
    );
    const options = {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
      types: ["node"],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
    };
    const host = ts.createCompilerHost(options);
    const read = host.getSourceFile.bind(host);
    host.getSourceFile = (name, lang, ...rest) => {
      const f = files.get(name);
      return f ? ts.createSourceFile(name, f.source, lang) : read(name, lang, ...rest);
    };
    const exists = host.fileExists.bind(host);
    host.fileExists = (name) => files.has(name) || exists(name);
    const program = ts.createProgram([...files.keys()], options, host);
    const errors = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file !== undefined && files.has(d.file.fileName))
      .map((d) => {
        const f = files.get((d.file as { fileName: string }).fileName) as { b: Block };
        const line =
          d.start === undefined
            ? 0
            : (d.file as import("typescript").SourceFile).getLineAndCharacterOfPosition(d.start).line;
        return `${f.b.file}:${f.b.line + 1 + line}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`;
      });
    expect(typed.length).toBeGreaterThanOrEqual(6);
    expect(errors).toEqual([]);
  }, 120_000);
});
