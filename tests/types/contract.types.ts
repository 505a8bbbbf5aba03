/** Compile-time tests of the contract's rows: a row's path parameters are named by its template. */
import type { PathParamNames, PathParams } from "../../provider/contract";
import { cloud, kv } from "../../provider/contracts/keep";
import { configurationVersions } from "../../provider/contracts/workspaces";
import type { KeepClient } from "../../provider/keep-client";
import type { WorkspacesClient } from "../../provider/workspaces-client";
import { Equal, Expect } from "./type-assertions";

type Checks = [
  Expect<Equal<PathParamNames<"{mount*}/roles/{name}">, "mount" | "name">>,
  Expect<Equal<PathParamNames<"sys/replication/status">, never>>,
  Expect<Equal<PathParams<"configuration-versions/{id}">, { id: string | number }>>,
  // A template known only at run time takes any names.
  Expect<Equal<PathParams<string>, Record<string, unknown>>>,
];

export async function calls(workspaces: WorkspacesClient, keep: KeepClient): Promise<void> {
  await workspaces.send(configurationVersions.read, { params: { id: "cv-1" } });
  await keep.send(kv.listMetadata, { params: { mount: "secret", prefix: "app/" } });
  // @ts-expect-error a misspelt parameter does not compile
  await workspaces.send(configurationVersions.read, { params: { idd: "cv-1" } });
  // @ts-expect-error a missing parameter does not compile
  await keep.send(cloud.rootConfig, { params: {} });
}

export type { Checks };
