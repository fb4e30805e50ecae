import {
  encodeF64,
  type Json,
  makeSnapshot,
  numberOption,
  optionKeys,
  readArmBaseState,
  readF64,
  readNumber,
  readOptions,
  readSnapshot,
  rejectUnknownOptions,
  restoring,
  type Snapshot,
} from "@routekit/core";
import { CoinBetting } from "./coin.js";
import {
  checkRoutePayloadUnchecked,
  encodeIterateUnchecked,
  hpgStepSizeUnchecked,
  readIterateUnchecked,
  softmaxIntoUnchecked,
} from "./helpers-core.js";
import { HPG_SNAPSHOT_VERSION, loadIterate } from "./hpg-snapshot.js";
import {
  LOW_RANK_ROUTER_OPTION_KEYS,
  type LowRankArm,
  LowRankRouter,
  type LowRankRouterOptions,
  readLowRankState,
} from "./low-rank.js";
import { MirrorIterate } from "./mirror.js";
import type { RoutePayload } from "./router.js";

export interface ParameterFreeHpgOptions extends LowRankRouterOptions {
  readonly contextDim: number;
  /** Inner mirror-descent step (default sqrt(M ln max(d, 3) / horizon)). */
  readonly stepSize?: number;
  /** Initial wealth epsilon of each coin-betting learner (default 1; the paper leaves it open). */
  readonly initialWealth?: number;
}

/** The option keys of {@link ParameterFreeHpgOptions}. */
export const PARAMETER_FREE_HPG_OPTION_KEYS = optionKeys<ParameterFreeHpgOptions>()([
  ...LOW_RANK_ROUTER_OPTION_KEYS,
  "initialWealth",
]);

interface PfArm extends LowRankArm {
  /** Direction w_m in the unit nuclear ball (inner HPG core: radius 1, beta 1/d): `iterate`. */
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
export class ParameterFreeHpg extends LowRankRouter<PfArm> {
  static readonly kind = "hpg/parameter-free";
  readonly kind = ParameterFreeHpg.kind;
  readonly stepSize: number;
  readonly initialWealth: number;

  constructor(options: ParameterFreeHpgOptions) {
    rejectUnknownOptions(options, PARAMETER_FREE_HPG_OPTION_KEYS, ParameterFreeHpg.kind);
    super(options, 2, ParameterFreeHpg.kind);
    const o = readOptions(options, ParameterFreeHpg.kind);
    const m = Array.isArray(o.arms) ? (o.arms as unknown[]).length : 0;
    this.stepSize = this.readStepSize(
      options,
      ParameterFreeHpg.kind,
      hpgStepSizeUnchecked(m, this.contextDim, this.horizon),
    );
    this.initialWealth = numberOption(o, "initialWealth", 1, { min: 0, openMin: true });
    this.addInitialArms(options);
  }

  /** Current bet z_m and wealth of every model, in `arms` order. */
  magnitudes(): { readonly arm: string; readonly bet: number; readonly wealth: number }[] {
    return this.table.ids.map((arm, i) => {
      const c = (this.table.states[i] as PfArm).coin;
      return { arm, bet: c.bet(), wealth: c.wealth };
    });
  }

  protected newIterate(): MirrorIterate {
    const d = this.contextDim;
    return new MirrorIterate({ dim: d, beta: 1 / d, radius: 1, maxRank: this.maxRank, reorthEvery: this.reorthEvery });
  }

  protected override createArm(uid: number): PfArm {
    return { uid, iterate: this.newIterate(), coin: new CoinBetting(this.initialWealth) };
  }

  protected override distribution(q: Float64Array, probs: Float64Array, aux: Float64Array): void {
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
    softmaxIntoUnchecked(s, k, probs);
  }

  protected override learnRound(p: RoutePayload, q: Float64Array, reward: number): void {
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

  protected override encodeArm(s: PfArm): Record<string, Json> {
    return {
      ...encodeIterateUnchecked(s.iterate),
      coin: encodeF64(Float64Array.of(s.coin.wealth, s.coin.fraction, s.coin.curvature)),
    };
  }

  toJSON(): Snapshot {
    return makeSnapshot(ParameterFreeHpg.kind, HPG_SNAPSHOT_VERSION, {
      initialWealth: this.initialWealth,
      ...this.lowRankState(),
      ...this.baseState(),
    });
  }

  static fromJSON(snapshot: unknown): ParameterFreeHpg {
    const st = readSnapshot(snapshot, ParameterFreeHpg.kind, HPG_SNAPSHOT_VERSION);
    const initialWealth = readNumber(st, "initialWealth", (v) => v > 0, "a number > 0");
    const common = readLowRankState(st);
    const snap = readArmBaseState(st, {
      minContextDim: 1,
      arm: (json, d) => {
        const it = readIterateUnchecked(json, d, Math.min(d, common.maxRank), 1 / d, 1);
        // Wealth > 0, |fraction| <= 1/2, curvature >= 1: the coin-betting invariants.
        const c = readF64(json.coin, "arms[].coin", 3, (x, i) =>
          i === 0 ? x > 0 : i === 1 ? Math.abs(x) <= 0.5 : x >= 1,
        );
        return { it, c };
      },
      payload: (json, d) => checkRoutePayloadUnchecked(json, d, 2),
    });
    return restoring(ParameterFreeHpg.kind, () => {
      const p = new ParameterFreeHpg({
        arms: [],
        contextDim: snap.contextDim,
        maxPending: snap.maxPending,
        initialWealth,
        ...common,
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
