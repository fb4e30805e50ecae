import type { FamilyRegistry } from "./types.js";

/** Policies, environments and scenarios contributed by this family. */
export const mnlRegistry: FamilyRegistry = { policies: [], environments: [], scenarios: [] };
