// Policies the replication benchmark can run, with a request generator for each.
export async function makePolicy(name, seed) {
  if (name === "linucb") {
    const { LinUCBDisjoint } = await import("@routekit/classic");
    const d = 16;
    const arms = ["a", "b", "c", "d", "e"];
    return {
      create: () => new LinUCBDisjoint({ arms, contextDim: d, seed }),
      restore: (s) => LinUCBDisjoint.fromJSON(s),
      input: (rng) => unit(rng, d),
    };
  }
  if (name === "rff-ucb") {
    const { RffUcb } = await import("@routekit/kernel-ucb");
    const d = 512;
    const arms = ["gpt-4o", "claude", "gemini", "llama", "mistral"];
    return {
      create: () => new RffUcb({ arms, contextDim: d, frequencies: 200, seed }),
      restore: (s) => RffUcb.fromJSON(s),
      input: (rng) => unit(rng, d),
    };
  }
  if (name === "ofu-mnl") {
    const { OfuMnlPlus } = await import("@routekit/mnl");
    const n = 100;
    const d = 5;
    return {
      create: () => new OfuMnlPlus({ contextDim: d, maxSize: 15, seed }),
      restore: (s) => OfuMnlPlus.fromJSON(s),
      input: (rng) => {
        const features = new Float64Array(n * d);
        for (let i = 0; i < features.length; i++) features[i] = rng.uniformIn(-1, 1) / Math.sqrt(d);
        return { features, numItems: n, maxSize: 15 };
      },
    };
  }
  throw new Error(`unknown policy ${name} (linucb, rff-ucb, ofu-mnl)`);
}

function unit(rng, d) {
  const x = new Float64Array(d);
  let s = 0;
  for (let i = 0; i < d; i++) {
    x[i] = rng.normal();
    s += x[i] * x[i];
  }
  for (let i = 0; i < d; i++) x[i] /= Math.sqrt(s);
  return x;
}
