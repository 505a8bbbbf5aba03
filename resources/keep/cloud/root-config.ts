/**
 * Root configuration of the cloud-credentials engine: `<mount>/config/root`, the credentials the
 * engine manages the provider with. A write replaces the whole configuration; the service never
 * returns the secret key.
 *
 * Rotation (`keep.cloud.RotateRoot`) replaces the service's access key with one only the service
 * knows the secret of, and deletes the declared one. That is not drift: `accessKey` is compared with
 * the value declared before (in state), never with the service's, and the service's key is reported
 * as `currentAccessKey`. The declared keys are sent only when the program changes them (or adopts the
 * configuration); a change of another setting after a rotation is refused before anything is sent,
 * since a write must carry credentials and the declared ones are revoked.
 */
import { z } from "zod";
import { cloud, cloudObjects } from "../../../provider/contracts/keep";
import type { OperationContext } from "../../../provider/context";
import { keepClientOf, keepObject, scopeOptions, splitKeepId } from "../../../provider/keep-object";
import { defineResource, ResourceArgs } from "../../../provider/resource";
import { isSecretReference, matchesFingerprint, secretInput } from "../../../provider/secret-ref";
import { isUnknown } from "../../../provider/unknowns";
import { cloudMount } from "./common";
import { usernameTemplateProblem } from "./username-template";

const emptyAsAbsent = (value: unknown) => (value === "" || value === null ? undefined : (value as string));

const inputs = z.object({
  /** Where the engine is mounted (default `cloudA`). Part of the ID; changing it replaces the configuration. */
  mount: cloudMount,
  /**
   * Access key ID of the provider user the engine acts as. After a rotation the service uses another
   * key (`currentAccessKey`); this input keeps the declared one and a rotation is not drift.
   */
  accessKey: z.string().min(1, "must be an access key ID"),
  /**
   * Secret key of `accessKey`: a string (kept in state as a secret) or a reference the provider host
   * resolves (`{ fromConfig: "app:secretKey" }`, `{ fromEnv }`, `{ fromFile }`), which keeps it out of
   * state. Write-only: the service never returns it.
   */
  secretKey: secretInput("secret key"),
  /**
   * Region of the provider's API calls; when left out the service takes its environment's region,
   * else `us-east-1` (reported as `currentRegion`).
   */
  region: z.string().min(1, "must name a region, or be left out").optional(),
  /** Custom endpoint of the provider's IAM API (an http or https URL). */
  iamEndpoint: z.url({ protocol: /^https?$/, error: "must be an http or https URL" }).optional(),
  /** Custom endpoint of the provider's STS API (an http or https URL). */
  stsEndpoint: z.url({ protocol: /^https?$/, error: "must be an http or https URL" }).optional(),
  /** Retries of the provider's API calls; -1 (the default) uses the provider SDK's own number. */
  maxRetries: z.number().int().min(-1, "must be -1 (the SDK's default) or a number of retries").default(-1),
  /**
   * Template of generated usernames (Go template syntax; `.Type` is `IAM` or `STS`, with
   * `.DisplayName` and `.PolicyName`). It must handle both types: IAM names are at most 64 characters
   * and STS names 32, and a longer one fails credential requests. Not returned by the service's read.
   */
  usernameTemplate: z
    .string()
    .superRefine((text, ctx) => {
      if (isUnknown(text)) return;
      const problem = usernameTemplateProblem(text);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    })
    .optional(),
});

const base = keepObject({
  type: "CloudRootConfig",
  description: "The root credentials of the cloud-credentials engine",
  rows: cloudObjects.rootConfig,
  id: "{mount*}",
  inputs,
  fields: {
    accessKey: { writeOnly: true },
    secretKey: { writeOnly: true },
    usernameTemplate: { writeOnly: true },
    iamEndpoint: { fromWire: emptyAsAbsent },
    stsEndpoint: { fromWire: emptyAsAbsent },
    region: { fromWire: emptyAsAbsent },
  },
  computed: z.object({
    /** The access key the service uses now: the declared one, or the one a rotation made. */
    currentAccessKey: z.string().default(""),
    /** The region the service uses now: the declared one, or its default when none is declared. */
    currentRegion: z.string().default(""),
  }),
  computedOf: (answer) => ({ currentAccessKey: typeof answer.access_key === "string" ? answer.access_key : "", currentRegion: typeof answer.region === "string" ? answer.region : "" }),
  secretInputs: ["secretKey"],
  // A region the program leaves to the service is reported as `currentRegion`, not as drift.
  serviceChosen: ["region"],
  singleton: { leave: "the engine has no delete for its root configuration; it keeps these credentials until they are written again or the engine is unmounted" },
  example: { inputs: () => ({ accessKey: "AKIAEXAMPLE", secretKey: { fromConfig: "app:secret" }, region: "us-east-1" }), change: { region: "eu-west-1" } },
});

/** Whether the resolved secret key differs from the one in state (a value, or a reference's fingerprint). */
function secretKeyChanged(before: unknown, now: unknown): boolean {
  if (typeof before === "string") return before !== now;
  if (isSecretReference(before)) return !before.fingerprint || typeof now !== "string" || !matchesFingerprint(now, before.fingerprint);
  return true;
}

async function currentAccessKeyOf(ctx: OperationContext, id: string): Promise<string | undefined> {
  const { id: _local, ...scope } = splitKeepId(id);
  const values = base.fromId(id);
  const answer = (await keepClientOf(ctx, scope).send(cloud.rootConfig, { params: { mount: values.mount ?? "" }, options: scopeOptions(scope) }))?.body;
  return answer?.access_key;
}

export const rootConfigSpec: typeof base = {
  ...base,
  effective: { region: "currentRegion" },
  async update(ctx, id, values, olds) {
    const adopting = (values as { adopt?: boolean }).adopt === true;
    const keysChanged = adopting || values.accessKey !== olds.accessKey || secretKeyChanged(olds.secretKey, values.secretKey);
    if (!keysChanged) {
      const current = await currentAccessKeyOf(ctx, id);
      if (current !== undefined && current !== values.accessKey) {
        throw new Error(
          `the service uses access key ${current}, not the declared ${values.accessKey} (a rotation replaced it, and deleted the declared one). ` +
            "A write replaces the credentials too, and only the service knows the current secret, so other settings cannot change alone: " +
            "declare a new key pair (accessKey and secretKey) with the change, or leave the settings as they are",
        );
      }
    }
    return base.update(ctx, id, values, olds);
  },
};

/**
 * The root configuration of a cloud-credentials engine (`<mount>/config/root`). Rotation by
 * `RotateRoot` is not drift. Destroy leaves it on the service. ID: `<mount>`.
 */
export const RootConfig = defineResource(rootConfigSpec);
export type RootConfig = InstanceType<typeof RootConfig>;
export type RootConfigArgs = ResourceArgs<typeof rootConfigSpec.inputs>;
