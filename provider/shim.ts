/**
 * The provider object Pulumi serializes into every resource's state (`__provider`). It captures
 * nothing but the resource's type (a string): each function loads the installed package at call time
 * and dispatches by type, so the state stays small, survives moved files, and holds no credential.
 *
 * The serializer writes every distinct function out in full, once per resource in state. So the
 * shim has four: one shared by configure, check, create and read (their arguments tell them apart,
 * see `dispatch` in host.ts), and one each for diff, update and delete (whose arguments look alike).
 */
import type * as pulumi from "@pulumi/pulumi";
import { shortTypeOf } from "./spec";

/** The package's own name; the shim requires `pulumi-keepstack/host` from the user's node_modules. */
export const PACKAGE_NAME = "pulumi-keepstack";

export function createShim(token: string): pulumi.dynamic.ResourceProvider {
  const t = shortTypeOf(token);
  // The module name is written out in each function: a literal costs nothing to serialize.
  const byArguments = (...a: unknown[]) => require("pulumi-keepstack/host").dispatch(t, a);
  return {
    configure: byArguments,
    check: byArguments,
    create: byArguments,
    read: byArguments,
    diff: (...a: unknown[]) => require("pulumi-keepstack/host").call(t, "diff", a),
    update: (...a: unknown[]) => require("pulumi-keepstack/host").call(t, "update", a),
    delete: (...a: unknown[]) => require("pulumi-keepstack/host").call(t, "delete", a),
  } as unknown as pulumi.dynamic.ResourceProvider;
}
