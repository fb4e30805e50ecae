import { RffUcb, type RffUcbOptions } from "@routekit/kernel-ucb";
import { type GatewayOptions, RoutingGateway } from "./gateway.js";

export interface RffGatewayOptions extends Omit<GatewayOptions<RffUcb>, "create" | "restore"> {
  /** Embedding length (default 256: the hashed prompt embedding's). */
  contextDim?: number;
  /** RffUcb's own options (seed, sigma, frequencies, exploration, maxPending, ...). */
  policy?: Omit<RffUcbOptions, "arms" | "contextDim">;
}

/** The sidecar with RFF-UCB, the kernel-ucb family's constant-time-per-request router. */
export function createRffGateway(o: RffGatewayOptions): RoutingGateway<RffUcb> {
  const { contextDim = 256, policy = {}, ...rest } = o;
  return RoutingGateway.open({
    ...rest,
    create: (models) => new RffUcb({ ...policy, arms: [...models], contextDim }),
    restore: (snapshot) => {
      const policy = RffUcb.fromJSON(snapshot);
      // An embedding of the new length would be refused on every request: say so at the start instead.
      if (policy.contextDim !== contextDim) {
        throw new Error(
          `the state directory's router takes contexts of length ${policy.contextDim}, not ${contextDim} (--dim): use a new state directory to change it`,
        );
      }
      return policy;
    },
  });
}
