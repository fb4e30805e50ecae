import {
  type ArmState,
  encodeF64,
  field,
  type Json,
  makeSnapshot,
  numberOption,
  readArmBaseState,
  readF64,
  readInt,
  readNumber,
  readOptions,
  readSnapshot,
  restoring,
  type Snapshot,
} from "@routekit/core";
import { CoinBetting } from "./coin.js";
import { encodeIterate, HPG_SNAPSHOT_VERSION, hpgStepSize, loadIterate, readIterate } from "./hpg.js";
import { MirrorIterate } from "./mirror.js";
import { checkRoutePayload, type RoutePayload, RouterBase, type RouterOptions, softmaxInto } from "./router.js";

export interface ParameterFreeHpgOptions extends RouterOptions {
  readonly contextDim: number;
  /** Planned number of rounds T for the inner step size (default 10,000). */
  readonly horizon?: number;
  /** Inner mirror-descent step (default sqrt(M ln max(d, 3) / horizon)). */
  readonly stepSize?: number;
  /** Initial wealth epsilon of each coin-betting learner (default 1; the paper leaves it open). */
  readonly initialWealth?: number;
  /** Largest rank kept per inner iterate (default min(contextDim, 32)). */
  readonly maxRank?: number;
  /** Steps between re-orthonormalisations (default 1,000; 0 = never). */
  readonly reorthEvery?: number;
}

interface PfArm extends ArmState {
  /** Direction w_m in the unit nuclear ball (inner HPG core: radius 1, beta 1/d). */
  readonly iterate: MirrorIterate;
  /** Magnitude z_m (a 1-D coin-betting learner). */
  readonly coin: CoinBetting;
}

/**
 * Parameter-free HPG (paper Algorithm 2, Appendix E.2): W_m = z_m w_m with the direction w_m from an
 * inner HPG core on the unit nuclear ball (radius 1, beta = 1/d) and the magnitude z_m from a
 * Cutkosky-Orabona coin-betting learner (ONS betting, initial wealth epsilon), so no latent rank s or
 * radius is needed. The round's g_m = <G_m, w_m> uses the inner iterate and the bet of the decision
 * (kept in the pending decision and the event as `aux`), |g_m| <= 1 because rewards are clipped to
 * [-1, 1]. There is no exploration floor: a very sharp policy explores little.
 */
export class ParameterFreeHpg extends RouterBase<PfArm> {
  static readonly kind = "hpg/parameter-free";
  readonly kind = ParameterFreeHpg.kind;
  readonly horizon: number;
  readonly stepSize: number;
  readonly initialWealth: number;
  readonly maxRank: number;
  readonly reorthEvery: number;

  constructor(options: ParameterFreeHpgOptions) {
    super(options, 2, ParameterFreeHpg.kind);
    const o = readOptions(options, ParameterFreeHpg.kind);
    const d = this.contextDim;
    this.horizon = numberOption(o, "horizon", 10_000, { integer: true, min: 1 });
    const m = Array.isArray(o.arms) ? (o.arms as unknown[]).length : 0;
    this.stepSize = numberOption(o, "stepSize", hpgStepSize(m, d, this.horizon), { min: 0, openMin: true });
    this.initialWealth = numberOption(o, "initialWealth", 1, { min: 0, openMin: true });
    this.maxRank = numberOption(o, "maxRank", Math.min(d, 32), { integer: true, min: 1 });
    this.reorthEvery = numberOption(o, "reorthEvery", 1000, { integer: true, min: 0 });
    this.addInitialArms(options);
  }

  /** Current bet z_m and wealth of every model, in `arms` order. */
  magnitudes(): { readonly arm: string; readonly bet: number; readonly wealth: number }[] {
    return this.table.ids.map((arm, i) => {
      const c = (this.table.states[i] as PfArm).coin;
      return { arm, bet: c.bet(), wealth: c.wealth };
    });
  }

  private newIterate(): MirrorIterate {
    const d = this.contextDim;
    return new MirrorIterate({ dim: d, beta: 1 / d, radius: 1, maxRank: this.maxRank, reorthEvery: this.reorthEvery });
  }

  protected createArm(uid: number): PfArm {
    return { uid, iterate: this.newIterate(), coin: new CoinBetting(this.initialWealth) };
  }

  protected distribution(q: Float64Array, probs: Float64Array, aux: Float64Array): void {
    const k = this.table.size;
    const s = this.scores;
    for (let i = 0; i < k; i++) {
      const st = this.table.states[i] as PfArm;
      const a = st.iterate.score(q);
      const z = st.coin.bet();
      aux[2 * i] = a;
      aux[2 * i + 1] = z;
      s[i] = z * a;
    }
    softmaxInto(s, k, probs);
  }

  protected learnRound(p: RoutePayload, q: Float64Array, reward: number): void {
    const eta = this.stepSize;
    for (let i = 0; i < p.n; i++) {
      const s = this.live(p.ids[i] as string);
      if (s === undefined) continue;
      const c = -reward * ((i === p.chosen ? 1 : 0) - (p.probs[i] as number));
      const a = p.aux[2 * i] as number;
      // The bet played; with late feedback the wealth may have fallen since, so it is capped at half the
      // current wealth (what an immediate update bets at most), which keeps the wealth positive.
      const w = s.coin.wealth;
      const z0 = p.aux[2 * i + 1] as number;
      const z = z0 > 0.5 * w ? 0.5 * w : z0 < -0.5 * w ? -0.5 * w : z0;
      // |a| <= |w|_* <= 1 at decision time; an event's aux is clamped so the wealth stays positive.
      const g = c * (a > 1 ? 1 : a < -1 ? -1 : a);
      s.coin.update(g, z);
      s.iterate.step(q, -eta * c);
    }
  }

  protected encodeArm(s: PfArm): Record<string, Json> {
    return {
      ...encodeIterate(s.iterate),
      coin: encodeF64(Float64Array.of(s.coin.wealth, s.coin.fraction, s.coin.curvature)),
    };
  }

  toJSON(): Snapshot {
    return makeSnapshot(ParameterFreeHpg.kind, HPG_SNAPSHOT_VERSION, {
      horizon: this.horizon,
      stepSize: this.stepSize,
      initialWealth: this.initialWealth,
      maxRank: this.maxRank,
      reorthEvery: this.reorthEvery,
      normalizeContext: this.normalizeContext,
      clipRewards: this.clipRewards,
      ...this.baseState(),
    });
  }

  static fromJSON(snapshot: unknown): ParameterFreeHpg {
    const st = readSnapshot(snapshot, ParameterFreeHpg.kind, HPG_SNAPSHOT_VERSION);
    const pos = (v: number) => v > 0;
    const stepSize = readNumber(st, "stepSize", pos, "a number > 0");
    const initialWealth = readNumber(st, "initialWealth", pos, "a number > 0");
    const horizon = readInt(st, "horizon", 1);
    const maxRank = readInt(st, "maxRank", 1);
    const reorthEvery = readInt(st, "reorthEvery", 0);
    const normalizeContext = field(st, "normalizeContext", "boolean");
    const clipRewards = field(st, "clipRewards", "boolean");
    const snap = readArmBaseState(st, {
      minContextDim: 1,
      arm: (json, d) => {
        const it = readIterate(json, d, Math.min(d, maxRank), 1 / d, 1);
        // Wealth > 0, |fraction| <= 1/2, curvature >= 1: the coin-betting invariants.
        const c = readF64(json.coin, "arms[].coin", 3, (x, i) =>
          i === 0 ? x > 0 : i === 1 ? Math.abs(x) <= 0.5 : x >= 1,
        );
        return { it, c };
      },
      payload: (json, d) => checkRoutePayload(json, d, 2),
    });
    return restoring(ParameterFreeHpg.kind, () => {
      const p = new ParameterFreeHpg({
        arms: [],
        contextDim: snap.contextDim,
        maxPending: snap.maxPending,
        horizon,
        stepSize,
        initialWealth,
        maxRank,
        reorthEvery,
        normalizeContext,
        clipRewards,
      });
      p.restoreBase(snap, (a, uid) => {
        const iterate = p.newIterate();
        loadIterate(iterate, a.it);
        const coin = new CoinBetting(a.c[0] as number);
        coin.fraction = a.c[1] as number;
        coin.curvature = a.c[2] as number;
        return { uid, iterate, coin };
      });
      return p;
    });
  }
}
