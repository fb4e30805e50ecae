import { UCB1 } from "@routekit/classic";
import { isRouteKitError } from "@routekit/core";
import { expect, expectTypeOf, it } from "vitest";
import { type REPLICA_OPTION_KEYS, Replica, type ReplicaOptions, type ReplicaPolicy } from "../src/index.js";

it("the key list names exactly the keys of ReplicaOptions", () => {
  expectTypeOf<(typeof REPLICA_OPTION_KEYS)[number]>().toEqualTypeOf<keyof ReplicaOptions<ReplicaPolicy>>();
});

it("README: an unknown option key, e.g. `snapshotevery`, is INVALID_ARGUMENT before anything connects", async () => {
  let created = 0;
  const options = {
    // A port nothing listens on: the refusal must come before any connection attempt.
    redis: "redis://127.0.0.1:1",
    stream: "opts",
    replicaId: "r1",
    create: () => {
      created++;
      return new UCB1({ arms: ["a", "b"] });
    },
    restore: UCB1.fromJSON,
    snapshotevery: 5,
  };
  const e = await Replica.start(options as never).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(isRouteKitError(e, "INVALID_ARGUMENT")).toBe(true);
  expect((e as Error).message).toContain('unknown option "snapshotevery" (did you mean "snapshotEvery"?)');
  expect(created).toBe(0);
});
