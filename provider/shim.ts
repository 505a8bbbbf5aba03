/**
 * The provider object Pulumi serializes into every resource's state (`__provider`). It captures
 * nothing but two strings: each method loads the installed package at call time and dispatches by
 * type token, so the state stays small, survives moved files, and holds no credential.
 */
import type * as pulumi from "@pulumi/pulumi";

/** The package's own name; the host module is required through it from the user's node_modules. */
export const PACKAGE_NAME = "pulumi-keepstack";

export function createShim(token: string): pulumi.dynamic.ResourceProvider {
  const host = `${PACKAGE_NAME}/host`;
  const t = token;
  return {
    configure: (req) => require(host).configure(req),
    check: (olds, news) => require(host).call(t, "check", [olds, news]),
    diff: (id, olds, news) => require(host).call(t, "diff", [id, olds, news]),
    create: (inputs) => require(host).call(t, "create", [inputs]),
    read: (id, props) => require(host).call(t, "read", [id, props]),
    update: (id, olds, news) => require(host).call(t, "update", [id, olds, news]),
    delete: (id, props) => require(host).call(t, "delete", [id, props]),
  };
}
