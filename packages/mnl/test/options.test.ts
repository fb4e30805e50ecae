/**
 * Constructor and query misuse gets core's error codes (INVALID_ARGUMENT for wrong types and missing
 * fields, NON_FINITE, OUT_OF_RANGE for finite values outside the documented range), never a TypeError.
 */
import { type AssortmentPolicy, ErrorCode, isRouteKitError, makeSnapshot, Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { OfuMnlPlus, TsMnl, UcbMnl } from "../src/index.js";
import { randomQuery } from "./helpers.js";

type Ctor = new (o: never) => AssortmentPolicy;
const classes: [string, Ctor][] = [
  ["OfuMnlPlus", OfuMnlPlus as unknown as Ctor],
  ["UcbMnl", UcbMnl as unknown as Ctor],
  ["TsMnl", TsMnl as unknown as Ctor],
];

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return isRouteKitError(e) ? e.code : `untyped ${String(e)}`;
  }
  return undefined;
}

const ok = { contextDim: 3, maxSize: 2 };

describe.each(classes)("%s options", (_name, C) => {
  const make = (o: unknown) => () => new C(o as never);
  it("JavaScript-level misuse is INVALID_ARGUMENT", () => {
    for (const o of [undefined, null, 5, "x", [], {}, { contextDim: 3 }, { maxSize: 2 }]) {
      expect(codeOf(make(o)), JSON.stringify(o)).toBe(ErrorCode.InvalidArgument);
    }
    expect(codeOf(make({ ...ok, contextDim: "3" }))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(make({ ...ok, v0: "1" }))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(make({ ...ok, preset: "fast" }))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(make({ ...ok, utilityClip: "0,2" }))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(make({ ...ok, utilityClip: [0] }))).toBe(ErrorCode.InvalidArgument);
  });

  it("non-finite numbers are NON_FINITE, finite ones outside the range OUT_OF_RANGE", () => {
    expect(codeOf(make({ ...ok, v0: Number.NaN }))).toBe(ErrorCode.NonFinite);
    expect(codeOf(make({ ...ok, exploration: Number.POSITIVE_INFINITY }))).toBe(ErrorCode.NonFinite);
    expect(codeOf(make({ ...ok, utilityClip: [0, Number.NaN] }))).toBe(ErrorCode.NonFinite);
    for (const bad of [
      { contextDim: 0 },
      { contextDim: 2.5 },
      { contextDim: 5000 },
      { maxSize: 0 },
      { v0: 0 },
      { v0: -1 },
      { ridge: 0 },
      { exploration: -1 },
      { maxPending: 0 },
      { maxPending: 1.5 },
      { utilityClip: [2, 0] },
    ]) {
      expect(codeOf(make({ ...ok, ...bad })), JSON.stringify(bad)).toBe(ErrorCode.OutOfRange);
    }
  });

  it("a query without maxSize is INVALID_ARGUMENT; maxSize < 1 EMPTY_ASSORTMENT; fractional OUT_OF_RANGE", () => {
    const p = new C(ok as never);
    const q = randomQuery(Rng.fromSeed(1), 5, 3, 2);
    const before = JSON.stringify(p.toJSON());
    expect(codeOf(() => p.select({ ...q, maxSize: undefined } as never))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(() => p.select({ ...q, maxSize: "2" } as never))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(() => p.select({ ...q, maxSize: 0 }))).toBe(ErrorCode.EmptyAssortment);
    expect(codeOf(() => p.select({ ...q, maxSize: 1.5 }))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => p.select({ ...q, maxSize: Number.NaN }))).toBe(ErrorCode.NonFinite);
    expect(codeOf(() => p.select({ ...q, maxSize: 3 }))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => p.select({ ...q, numItems: undefined } as never))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(() => p.select({ ...q, numItems: 0, features: new Float64Array(0) }))).toBe(
      ErrorCode.EmptyAssortment,
    );
    expect(codeOf(() => p.select({ ...q, features: q.features.subarray(1) }))).toBe(ErrorCode.DimensionMismatch);
    expect(codeOf(() => p.select(null as never))).toBe(ErrorCode.InvalidArgument);
    expect(JSON.stringify(p.toJSON())).toBe(before);
    // A plain array is read once and validated as read.
    const plain = Array.from(q.features);
    const d = p.select({ ...q, features: plain as never });
    expect(d.items.length).toBe(2);
  });
});

it("TsMnl: rng must be an Rng, samples an integer in [1, 10000]", () => {
  expect(codeOf(() => new TsMnl({ ...ok, rng: {} as never }))).toBe(ErrorCode.InvalidArgument);
  expect(codeOf(() => new TsMnl({ ...ok, samples: 0 }))).toBe(ErrorCode.OutOfRange);
  expect(codeOf(() => new TsMnl({ ...ok, seed: "abc" }))).toBeUndefined();
});

it("OfuMnlPlus: stepSize and confidence ranges", () => {
  expect(codeOf(() => new OfuMnlPlus({ ...ok, stepSize: 0 }))).toBe(ErrorCode.OutOfRange);
  expect(codeOf(() => new OfuMnlPlus({ ...ok, confidence: 0 }))).toBe(ErrorCode.OutOfRange);
  expect(codeOf(() => new OfuMnlPlus({ ...ok, confidence: 1.5 }))).toBe(ErrorCode.OutOfRange);
  expect(codeOf(() => new OfuMnlPlus({ ...ok, betaMode: "x" as never }))).toBe(ErrorCode.InvalidArgument);
  expect(new OfuMnlPlus({ ...ok, confidence: 1 }).config.confidence).toBe(1);
});

it("OfuMnlPlus: beta only with betaMode 'constant' (README), so a radius no mode reads is not silently ignored", () => {
  expect(codeOf(() => new OfuMnlPlus({ ...ok, beta: 1 }))).toBe(ErrorCode.InvalidArgument);
  expect(codeOf(() => new OfuMnlPlus({ ...ok, betaMode: "theory", beta: 0.5 }))).toBe(ErrorCode.InvalidArgument);
  expect(codeOf(() => new OfuMnlPlus({ ...ok, betaMode: "theory", beta: 0 }))).toBeUndefined(); // the default: nothing ignored
  expect(codeOf(() => new OfuMnlPlus({ ...ok, preset: "practical", beta: 2 }))).toBe(ErrorCode.InvalidArgument);
  expect(new OfuMnlPlus({ ...ok, betaMode: "constant", beta: 1 }).config.beta).toBe(1);
  expect(new OfuMnlPlus({ ...ok, beta: undefined }).config.beta).toBe(0); // a key set to undefined: the default
  expect(codeOf(() => new OfuMnlPlus({ ...ok, betaMode: "constant", beta: -1 }))).toBe(ErrorCode.OutOfRange);
  // A snapshot carrying a radius with another betaMode (written before this check) restores and round-trips.
  const snap = JSON.parse(JSON.stringify(new OfuMnlPlus({ ...ok, betaMode: "frozen" }).toJSON()));
  snap.state.config.beta = 0.75;
  const resealed = makeSnapshot(snap.kind, snap.kindVersion, snap.state);
  const back = OfuMnlPlus.fromJSON(resealed);
  expect(back.config.beta).toBe(0.75);
  expect(JSON.stringify(back.toJSON())).toBe(JSON.stringify(resealed));
});
