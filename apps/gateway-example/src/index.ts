export { DecisionIds } from "./decision-ids.js";
export { EventLog } from "./event-log.js";
export { type GatewayOptions, type GatewayStats, type RouteResponse, RoutingGateway } from "./gateway.js";
export { type ErrorBody, errorResponse, HTTP_STATUS, RequestError } from "./http-errors.js";
export { createRffGateway, type RffGatewayOptions } from "./rff-gateway.js";
export {
  benchmarks,
  formatReport,
  MODELS,
  type Model,
  makePrompt,
  post,
  QUALITY,
  simulateTraffic,
  TOPICS,
  type Topic,
  type TrafficOptions,
  type TrafficResult,
} from "./simulate.js";
export { type GatewaySnapshot, type Lineage, readSnapshotFile, writeSnapshotFile } from "./snapshot-file.js";
export { acquireStateLock } from "./state-lock.js";
