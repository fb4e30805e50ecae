/**
 * Weitzman's Pandora's box toolkit (the oracle of the paper, Section 3, Proposition 3.1): reservation
 * indices, the index order and the oracle's play. It lives in `@routekit/core` because the cascade
 * environments' oracles use it too; re-exported here, where users of the cascade family look for it.
 */
export {
  type DiscreteBox,
  indexBernoulli,
  indexDeterministic,
  indexDiscrete,
  indexNormal,
  indexUniform,
  reservationIndex,
  type WeitzmanPlay,
  weitzmanOrder,
  weitzmanPlay,
  weitzmanValue,
} from "@routekit/core";
