/**
 * Performance replication of the secrets service between two clusters, then a failover.
 *
 * `keep:` is the primary cluster, `keep-dr:` the disaster-recovery one (`keep-dr:address`,
 * `keep-dr:token`, or KEEP_DR_ADDR and KEEP_DR_TOKEN).
 *
 * 1. `pulumi up`: the primary is enabled, issues an activation token for "dr", and the dr cluster
 *    becomes its secondary: every piece of data on dr is wiped (`acceptDataWipe`) and replaced by the
 *    primary's. Mounts listed in `replication:localOnly` (default `["scratch/"]`) stay on the primary.
 *    The team policy is written on the primary and reaches dr by replication.
 * 2. `pulumi config set replication:failover true` and `pulumi up`: the primary is demoted, dr is
 *    promoted, and the old primary follows dr with a token dr issues (no wipe: same replication set).
 *
 * Running it again, or after the state is lost, changes nothing: each transition reads the
 * cluster's mode first and does nothing when it holds already.
 */
import * as pulumi from "@pulumi/pulumi";
import { keep } from "pulumi-keepstack";

export = async () => {
  const config = new pulumi.Config("replication");
  const localOnly = config.getObject<string[]>("localOnly") ?? ["scratch/"];

  const primary = new keep.replication.PrimaryEnable("primary", {});
  const token = new keep.replication.SecondaryToken("dr-token", { secondaryId: "dr", ttl: "15m" }, { dependsOn: primary });
  const dr = new keep.replication.SecondaryEnable("dr", { cluster: "dr", token: token.token, acceptDataWipe: true });
  new keep.replication.PathsFilter("dr-filter", { secondaryClusterId: dr.clusterId, mode: "deny", paths: localOnly });
  new keep.AclPolicy("team", { name: "team", policy: 'path "secret/data/team/*" {\n  capabilities = ["read"]\n}\n' }, { dependsOn: dr });

  const outputs: Record<string, unknown> = {
    drClusterId: dr.clusterId,
    drState: dr.state,
    drMode: dr.clusterId.apply(async () => (await keep.replication.getStatus({ cluster: "dr" })).mode),
  };

  if (config.getBoolean("failover")) {
    const demoted = new keep.replication.PrimaryDemote("demote-primary", {}, { dependsOn: dr });
    const promoted = new keep.replication.SecondaryPromote("promote-dr", { cluster: "dr" }, { dependsOn: demoted });
    const back = new keep.replication.SecondaryToken("primary-token", { cluster: "dr", secondaryId: "primary" }, { dependsOn: promoted });
    const follows = new keep.replication.UpdatePrimary("primary-follows-dr", { token: back.token });
    outputs.formerPrimaryState = follows.state;
    outputs.drModeAfterFailover = promoted.mode;
  }
  return outputs;
};
