export { type ApplyCounts, type JoinState, type ReplicablePolicy, StreamApplier } from "./apply.js";
export { compareStreamIds, decodeEntry, encodeEntry, type StreamEntry } from "./entries.js";
export {
  type AddArmOptionsOf,
  REPLICA_OPTION_KEYS,
  Replica,
  type ReplicaOptions,
  type ReplicaPolicy,
  type ReplicaStats,
} from "./replica.js";
