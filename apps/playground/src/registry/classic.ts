import type { FamilyRegistry } from "./types.js";

/** Policies, environments and scenarios contributed by this family. */
export const classicRegistry: FamilyRegistry = { policies: [], environments: [], scenarios: [] };
