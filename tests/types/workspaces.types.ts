/** Compile-time tests of the workspace service's resources and functions (compiled by types.test.ts). */
import * as pulumi from "@pulumi/pulumi";
import { workspaces } from "pulumi-keepstack";
import { Equal, Expect } from "./type-assertions";

declare const flag: pulumi.Output<boolean>;
declare const text: pulumi.Output<string>;
declare const maybeText: pulumi.Output<string | undefined>;
declare const mode: pulumi.Output<"remote" | "local" | "agent">;
declare const maybeMode: pulumi.Output<"remote" | "local" | "agent" | undefined>;
declare const patterns: pulumi.Output<string[]>;
declare const repo: pulumi.Output<{ identifier: string; oauthTokenId: string; branch?: string }>;
declare const maybeRepo: pulumi.Output<{ identifier: string; oauthTokenId: string } | undefined>;

export function acceptsInputsAtEveryLevel() {
  new workspaces.Workspace("booleans", { name: "w", autoApply: pulumi.output(true), queueAllRuns: flag, speculativeEnabled: false });
  new workspaces.Workspace("optional", { name: text, description: maybeText, organization: maybeText, projectId: undefined });
  new workspaces.Workspace("enums", { name: "w", executionMode: mode, agentPoolId: text });
  new workspaces.Workspace("maybe-enum", { name: "w", executionMode: maybeMode });
  new workspaces.Workspace("arrays", { name: "w", triggerPatterns: patterns, triggerPrefixes: ["modules/", text] });
  new workspaces.Workspace("repo-output", { name: "w", vcsRepo: repo });
  new workspaces.Workspace("maybe-repo", { name: "w", vcsRepo: maybeRepo });
  new workspaces.Workspace("repo-fields", {
    name: "w",
    vcsRepo: { identifier: text, oauthTokenId: text, branch: maybeText, ingressSubmodules: flag },
    settingOverwrites: { executionMode: flag, agentPool: pulumi.output(false) },
  });
  new workspaces.ConfigurationVersion("cv", { workspaceId: text, directory: "./infra", speculative: flag, exclude: [text] });
}

export function rejectsWrongTypes() {
  // @ts-expect-error autoApply is a boolean
  new workspaces.Workspace("text-flag", { name: "w", autoApply: "yes" });
  // @ts-expect-error an Output of a string is not a boolean
  new workspaces.Workspace("text-flag-output", { name: "w", autoApply: text });
  // @ts-expect-error an execution mode outside the enum
  new workspaces.Workspace("bad-mode", { name: "w", executionMode: "cloud" });
  // @ts-expect-error an Output of any string is wider than the enum
  new workspaces.Workspace("wide-mode", { name: "w", executionMode: text });
  // @ts-expect-error identifier is required in vcsRepo
  new workspaces.Workspace("repo-without-identifier", { name: "w", vcsRepo: { oauthTokenId: "ot-1" } });
  // @ts-expect-error a nested field of the wrong type, as an Output
  new workspaces.Workspace("repo-bad-field", { name: "w", vcsRepo: { identifier: "a/b", ingressSubmodules: text } });
  // @ts-expect-error an unknown nested field
  new workspaces.Workspace("repo-unknown-field", { name: "w", vcsRepo: { identifier: "a/b", oauthTokenId: "ot-1", brnch: "main" } });
  // @ts-expect-error array elements are strings
  new workspaces.Workspace("number-patterns", { name: "w", triggerPatterns: [pulumi.output(3)] });
  // @ts-expect-error workspaceId is required
  new workspaces.ConfigurationVersion("cv-without-workspace", { directory: "./infra" });
}

export function outputTypes(ws: workspaces.Workspace, cv: workspaces.ConfigurationVersion) {
  type Checks = [
    Expect<Equal<typeof ws.autoApply, pulumi.Output<boolean>>>,
    Expect<Equal<typeof ws.description, pulumi.Output<string | undefined>>>,
    Expect<Equal<typeof ws.executionMode, pulumi.Output<"remote" | "local" | "agent" | undefined>>>,
    Expect<Equal<typeof ws.triggerPatterns, pulumi.Output<string[]>>>,
    Expect<Equal<typeof cv.workspaceId, pulumi.Output<string>>>,
  ];
  // @ts-expect-error a boolean output is not an Output of a string
  type Wrong = Expect<Equal<typeof ws.autoApply, pulumi.Output<string>>>;
  return [] as unknown as [Checks, Wrong];
}

export async function functionsTakePlainArguments() {
  const all = await workspaces.listWorkspaces({ organization: "acme" });
  const versions = await workspaces.listConfigurationVersions({ workspaceId: "ws-1" });
  const version = await workspaces.getConfigurationVersion({ configurationVersionId: "cv-1" });
  const ingress = await workspaces.getIngressAttributes({ configurationVersionId: "cv-1" });
  type Checks = [
    Expect<Equal<typeof all, workspaces.WorkspaceSummary[]>>,
    Expect<Equal<typeof versions, workspaces.ConfigurationVersionInfo[]>>,
    Expect<Equal<typeof version.ingressAttributes, workspaces.IngressAttributes | null>>,
    Expect<Equal<typeof ingress, workspaces.IngressAttributes | undefined>>,
  ];
  // @ts-expect-error workspaceId is required
  await workspaces.listConfigurationVersions({});
  // @ts-expect-error the directory to unpack into is required
  await workspaces.downloadConfigurationVersion({ configurationVersionId: "cv-1" });
  return [] as unknown as Checks;
}
