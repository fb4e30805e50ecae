/**
 * log(sum_i exp(x_i)) over x[offset .. offset+n), shifted by the max so it never overflows
 * (finite at +-1e308). -Infinity entries contribute 0; all -Infinity (or n = 0) gives -Infinity;
 * any +Infinity gives +Infinity; any NaN gives NaN.
 */
export function logSumExp(x: ArrayLike<number>, n = x.length, offset = 0): number {
  let m = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    const v = x[offset + i] as number;
    if (v > m) m = v;
    else if (Number.isNaN(v)) return Number.NaN;
  }
  if (m === Number.NEGATIVE_INFINITY || m === Number.POSITIVE_INFINITY) return m;
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.exp((x[offset + i] as number) - m);
  return m + Math.log(s);
}

/**
 * out_i = exp(x_i - logSumExp(x)) over n entries; sums to 1 up to rounding; `out` may alias x.
 * Limits are taken where the formula is 0/0 or inf/inf: with +Infinity entries, uniform over them;
 * with all entries -Infinity, uniform (they are tied). Any NaN makes every output NaN.
 */
export function softmax(x: ArrayLike<number>, out: Float64Array, n = x.length): Float64Array {
  let m = Number.NEGATIVE_INFINITY;
  let nan = false;
  for (let i = 0; i < n; i++) {
    const v = x[i] as number;
    if (v > m) m = v;
    else if (Number.isNaN(v)) nan = true;
  }
  if (nan) return out.fill(Number.NaN, 0, n);
  if (m === Number.POSITIVE_INFINITY || m === Number.NEGATIVE_INFINITY) {
    // Uniform over the entries equal to m: the limit of the softmax.
    let k = 0;
    for (let i = 0; i < n; i++) k += x[i] === m ? 1 : 0;
    for (let i = 0; i < n; i++) out[i] = x[i] === m ? 1 / k : 0;
    return out;
  }
  let s = 0;
  for (let i = 0; i < n; i++) {
    const e = Math.exp((x[i] as number) - m);
    out[i] = e;
    s += e;
  }
  for (let i = 0; i < n; i++) out[i] = (out[i] as number) / s;
  return out;
}

/** Stable log(1 + exp(x)). */
export function softplus(x: number): number {
  return x > 0 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x));
}

/** Stable logistic sigmoid. */
export function sigmoid(x: number): number {
  if (x >= 0) return 1 / (1 + Math.exp(-x));
  const e = Math.exp(x);
  return e / (1 + e);
}
