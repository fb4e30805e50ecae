import { defineConfig } from "vitest/config";
import { sharedTestConfig } from "../../../vitest.shared";

export default defineConfig(
  sharedTestConfig({ include: ["scripts/generate-fixtures.ts", "scripts/generate-cascade-fixtures.ts"] }),
);
