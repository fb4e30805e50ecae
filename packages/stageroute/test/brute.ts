/**
 * Reference solvers for the tests: vertex enumeration of the routing LP, and brute force of DeployOPT
 * over all subsets of size <= s with vertex enumeration inside.
 */

/** Best objective of the routing LP by vertex enumeration, or undefined when no p meets all rows. */
export function bruteRoute(u: number[], c: number[], a: number[], b: number, tol = 1e-9): number | undefined {
  const n = u.length;
  let best: number | undefined;
  // Every coordinate outside the free set sits at 0 or at its cap; 0, 1 or 2 free coordinates.
  const consider = (p: number[]) => {
    let sum = 0;
    let cost = 0;
    let val = 0;
    for (let i = 0; i < n; i++) {
      const v = p[i] as number;
      if (v < -tol || v > (a[i] as number) + tol) return;
      sum += v;
      cost += v * (c[i] as number);
      val += v * (u[i] as number);
    }
    if (Math.abs(sum - 1) > tol || cost > b + tol) return;
    if (best === undefined || val > best) best = val;
  };
  const bounds = (free: number[], f: (p: number[]) => void) => {
    const fixed = [...Array(n).keys()].filter((i) => !free.includes(i));
    const m = fixed.length;
    for (let mask = 0; mask < 1 << m; mask++) {
      const p = new Array<number>(n).fill(0);
      for (let k = 0; k < m; k++) if (mask & (1 << k)) p[fixed[k] as number] = a[fixed[k] as number] as number;
      f(p);
    }
  };
  bounds([], consider);
  for (let i = 0; i < n; i++) {
    bounds([i], (p) => {
      let rest = 0;
      for (let k = 0; k < n; k++) if (k !== i) rest += p[k] as number;
      p[i] = 1 - rest;
      consider(p);
    });
  }
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      bounds([i, j], (p) => {
        let rest = 0;
        let restCost = 0;
        for (let k = 0; k < n; k++) {
          if (k === i || k === j) continue;
          rest += p[k] as number;
          restCost += (p[k] as number) * (c[k] as number);
        }
        // p_i + p_j = 1 - rest, c_i p_i + c_j p_j = b - restCost.
        const m = 1 - rest;
        const ci = c[i] as number;
        const cj = c[j] as number;
        if (ci === cj) return;
        const pi = (b - restCost - cj * m) / (ci - cj);
        p[i] = pi;
        p[j] = m - pi;
        consider(p);
      });
    }
  }
  return best;
}

/** All subsets of {0..n-1} of size exactly k. */
export function subsets(n: number, k: number): number[][] {
  const out: number[][] = [];
  const rec = (start: number, cur: number[]) => {
    if (cur.length === k) {
      out.push([...cur]);
      return;
    }
    for (let i = start; i < n; i++) rec(i + 1, [...cur, i]);
  };
  rec(0, []);
  return out;
}

/** DeployOPT by brute force: best routing-LP value over subsets of size min(s, n). */
export function bruteDeploy(u: number[], c: number[], a: number[], b: number, s: number): number | undefined {
  let best: number | undefined;
  for (const S of subsets(u.length, Math.min(s, u.length))) {
    const v = bruteRoute(
      S.map((i) => u[i] as number),
      S.map((i) => c[i] as number),
      S.map((i) => a[i] as number),
      b,
    );
    if (v !== undefined && (best === undefined || v > best)) best = v;
  }
  return best;
}

/** Routing LP through HiGHS (LP format); undefined when infeasible. */
export function highsRoute(
  highs: { solve(p: string, o?: Record<string, unknown>): { Status: string; ObjectiveValue: number } },
  u: number[],
  c: number[],
  a: number[],
  b: number,
): number | undefined {
  const n = u.length;
  const term = (x: number, v: string) => `${x < 0 ? "-" : "+"} ${Math.abs(x)} ${v}`;
  const lines = ["Maximize", ` obj: ${u.map((x, i) => term(x, `p${i}`)).join(" ")}`, "Subject To"];
  lines.push(` budget: ${c.map((x, i) => term(x, `p${i}`)).join(" ")} <= ${b}`);
  lines.push(` mass: ${u.map((_, i) => `+ p${i}`).join(" ")} = 1`, "Bounds");
  for (let i = 0; i < n; i++) lines.push(` 0 <= p${i} <= ${a[i]}`);
  lines.push("End");
  const res = highs.solve(lines.join("\n"), { output_flag: false });
  if (res.Status === "Infeasible") return undefined;
  if (res.Status !== "Optimal") throw new Error(`HiGHS status ${res.Status}`);
  return res.ObjectiveValue;
}
