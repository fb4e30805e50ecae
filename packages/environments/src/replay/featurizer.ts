import { assertInt, ErrorCode, optionKeys, RouteKitError, rejectUnknownOptions } from "@routekit/core";

/** Options of {@link HashingFeaturizer}; every field has a documented default. */
export interface FeaturizerOptions {
  /** Output dimension (number of hash buckets). Default 256. */
  readonly dim?: number;
  /** Word n-grams of length 1..wordNgrams are hashed (0 disables words). Default 2 (unigrams + bigrams). */
  readonly wordNgrams?: number;
  /** Character n-grams of lengths [min, max] inside each word padded as `<word>` (fastText style). Default [3, 5]; [0, 0] disables. */
  readonly charNgrams?: readonly [number, number];
  /** Weight of the character n-gram block relative to the word block (each block is L2-normalised first). Default 1. */
  readonly charWeight?: number;
}

/** The option keys of {@link FeaturizerOptions}. */
export const FEATURIZER_OPTION_KEYS = optionKeys<FeaturizerOptions>()([
  "dim",
  "wordNgrams",
  "charNgrams",
  "charWeight",
]);

/** The resolved options, as recorded in results (so a run says exactly how prompts were featurized). */
export interface FeaturizerConfig {
  readonly dim: number;
  readonly wordNgrams: number;
  readonly charNgrams: readonly [number, number];
  readonly charWeight: number;
}

const WORD_SEED = 0x2f0b3c1d;
const CHAR_SEED = 0x6a09e667;

/** 32-bit FNV-1a over s[from, to) with a seed, finished with the murmur3 avalanche. */
function hashRange(s: string, from: number, to: number, seed: number): number {
  let h = (0x811c9dc5 ^ seed) | 0;
  for (let i = from; i < to; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function addHashed(out: Float64Array, h: number, dim: number): void {
  // Low bits pick the bucket, the top bit the sign (signed feature hashing: collisions cancel in expectation).
  const bucket = (h & 0x7fffffff) % dim;
  out[bucket] = (out[bucket] as number) + (h & 0x80000000 ? -1 : 1);
}

function normalizeInPlace(v: Float64Array, from: number, to: number, weight: number): void {
  let s = 0;
  for (let i = from; i < to; i++) s += (v[i] as number) * (v[i] as number);
  if (s === 0) return;
  const k = weight / Math.sqrt(s);
  for (let i = from; i < to; i++) v[i] = (v[i] as number) * k;
}

/**
 * A deterministic text featurizer: hashed word n-grams and character n-grams (the "hashing trick"),
 * L2-normalised. No vocabulary, no fitting, no randomness: the same text gives the same vector on every
 * machine and in every version that keeps these defaults, so replay results are reproducible.
 *
 * Text is NFKC-normalised and lowercased; words are maximal runs of Unicode letters and digits.
 * The word block and the character block are hashed into the same `dim` buckets, each block scaled to unit
 * norm (times `charWeight` for characters), and the sum is L2-normalised. Empty text (no letters or
 * digits) maps to the zero vector.
 */
export class HashingFeaturizer {
  readonly config: FeaturizerConfig;
  private readonly words: Float64Array;
  private readonly chars: Float64Array;

  constructor(options: FeaturizerOptions = {}) {
    rejectUnknownOptions(options, FEATURIZER_OPTION_KEYS, "Featurizer", true);
    const dim = options.dim ?? 256;
    const wordNgrams = options.wordNgrams ?? 2;
    const charNgrams = options.charNgrams ?? [3, 5];
    const charWeight = options.charWeight ?? 1;
    assertInt(dim, "featurizer dim", 1, 1 << 20);
    assertInt(wordNgrams, "featurizer wordNgrams", 0, 8);
    if (!Array.isArray(charNgrams) || charNgrams.length !== 2) {
      throw new RouteKitError(ErrorCode.InvalidArgument, "featurizer charNgrams must be a [min, max] pair");
    }
    assertInt(charNgrams[0], "featurizer charNgrams[0]", 0, 16);
    assertInt(charNgrams[1], "featurizer charNgrams[1]", charNgrams[0], 16);
    if (charNgrams[0] === 0 && charNgrams[1] !== 0) {
      throw new RouteKitError(ErrorCode.InvalidArgument, "featurizer charNgrams must be [0, 0] or start at >= 1");
    }
    if (!(charWeight >= 0) || !Number.isFinite(charWeight)) {
      throw new RouteKitError(ErrorCode.OutOfRange, `featurizer charWeight must be finite and >= 0, got ${charWeight}`);
    }
    if (wordNgrams === 0 && (charNgrams[1] === 0 || charWeight === 0)) {
      throw new RouteKitError(ErrorCode.InvalidArgument, "featurizer has neither word nor character n-grams enabled");
    }
    this.config = { dim, wordNgrams, charNgrams: [charNgrams[0], charNgrams[1]], charWeight };
    this.words = new Float64Array(dim);
    this.chars = new Float64Array(dim);
  }

  get dim(): number {
    return this.config.dim;
  }

  /** The feature vector of `text`, written into `out` (a new array when omitted). */
  transform(text: string, out: Float64Array = new Float64Array(this.config.dim)): Float64Array {
    if (typeof text !== "string") {
      throw new RouteKitError(ErrorCode.InvalidArgument, `featurizer input must be a string, got ${typeof text}`);
    }
    const { dim, wordNgrams, charNgrams, charWeight } = this.config;
    if (out.length !== dim) {
      throw new RouteKitError(
        ErrorCode.DimensionMismatch,
        `featurizer output has length ${out.length}, expected ${dim}`,
      );
    }
    const w = this.words.fill(0);
    const c = this.chars.fill(0);
    const tokens =
      text
        .normalize("NFKC")
        .toLowerCase()
        .match(/[\p{L}\p{N}]+/gu) ?? [];
    for (let n = 1; n <= wordNgrams; n++) {
      for (let i = 0; i + n <= tokens.length; i++) {
        const gram = n === 1 ? (tokens[i] as string) : tokens.slice(i, i + n).join(" ");
        addHashed(w, hashRange(gram, 0, gram.length, WORD_SEED + n), dim);
      }
    }
    if (charNgrams[1] > 0 && charWeight > 0) {
      for (const tok of tokens) {
        const padded = `<${tok}>`;
        for (let n = charNgrams[0]; n <= charNgrams[1]; n++) {
          for (let i = 0; i + n <= padded.length; i++) addHashed(c, hashRange(padded, i, i + n, CHAR_SEED), dim);
        }
      }
    }
    normalizeInPlace(w, 0, dim, 1);
    normalizeInPlace(c, 0, dim, charWeight);
    for (let i = 0; i < dim; i++) out[i] = (w[i] as number) + (c[i] as number);
    normalizeInPlace(out, 0, dim, 1);
    return out;
  }
}
