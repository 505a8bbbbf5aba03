/**
 * Performance replication of the secrets service between two clusters, then a failover.
 *
 * `keep:` is the primary cluster, `keep-dr:` the disaster-recovery one (`keep-dr:address`,
 * `keep-dr:token`, or KEEP_DR_ADDR and KEEP_DR_TOKEN).
 *
 * 1. `pulumi up`: the primary is enabled, issues an activation token for "dr", and the dr cluster
 *    becomes its secondary: every piece of data on dr is wiped (`acceptDataWipe`) and replaced by the
 *    primary's, then follows it. Mounts listed in `replication:localOnly` (default `["scratch/"]`)
 *    stay on the primary.
 * 2. `pulumi config set replication:failover true` and `pulumi up`: the primary is demoted, dr is
 *    promoted, and the old primary follows dr with a token dr issues (no wipe: same replication set).
 *    The program now declares the failover alone: the setup's runs leave the state (destroying a
 *    run does nothing) and the filter went with the demotion.
 *
 * Running a stage again, or after the state is lost, changes nothing: each transition reads the
 * cluster's mode first and does nothing when it holds already.
 */
import * as pulumi from "@pulumi/pulumi";
import { keep } from "pulumi-keepstack";

/** Mode of a cluster once `after` is done (read in the program, with its stack configuration). */
const modeOf = (cluster: string | undefined, after: pulumi.Output<unknown>) =>
  after.apply(async () => (await keep.replication.getStatus({ cluster })).mode);

export = async () => {
  const config = new pulumi.Config("replication");

  if (!config.getBoolean("failover")) {
    const primary = new keep.replication.PrimaryEnable("primary", {});
    const token = new keep.replication.SecondaryToken("dr-token", { secondaryId: "dr", ttl: "15m" }, { dependsOn: primary });
    const dr = new keep.replication.SecondaryEnable("dr", { cluster: "dr", token: token.token, acceptDataWipe: true });
    new keep.replication.PathsFilter("dr-filter", {
      secondaryClusterId: dr.clusterId,
      mode: "deny",
      paths: config.getObject<string[]>("localOnly") ?? ["scratch/"],
    });
    return { drClusterId: dr.clusterId, drState: dr.state, drMode: modeOf("dr", dr.clusterId) };
  }

  const demoted = new keep.replication.PrimaryDemote("demote-primary", {});
  const promoted = new keep.replication.SecondaryPromote("promote-dr", { cluster: "dr" }, { dependsOn: demoted });
  const back = new keep.replication.SecondaryToken("primary-token", { cluster: "dr", secondaryId: "primary" }, { dependsOn: promoted });
  const follows = new keep.replication.UpdatePrimary("primary-follows-dr", { token: back.token });
  return { drMode: modeOf("dr", promoted.mode), formerPrimaryState: follows.state, formerPrimaryMode: modeOf(undefined, follows.state) };
};
