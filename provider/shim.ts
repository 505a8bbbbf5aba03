/**
 * The provider every resource carries in its state (`__provider`): the source of a module the
 * provider host loads, whose `handler` gives the provider object. Ours is one line that asks the
 * installed package for the provider of the resource's type, so the state stays small, survives
 * moved files, and holds no credential.
 *
 * It is written here rather than serialized from a closure as `pulumi.dynamic.Resource` does. The
 * serializer's form of the same shim is about 1.4 KB (each method wrapped in a `with` scope that
 * rebuilds its closure on every call), and the host receives and sends it again in every request
 * and answer of every resource: in the bench, the host spent about an eighth more CPU with the
 * larger text. Serializing also loads the TypeScript compiler into the program.
 *
 * Shims written by earlier versions call `dispatch` and `call` of the host module, which stay.
 */
import { shortTypeOf } from "./spec";

/** The package's own name; the shim requires `pulumi-keepstack/host` from the user's node_modules. */
export const PACKAGE_NAME = "pulumi-keepstack";

/** The `__provider` text of a type token: the host module's provider of that type. */
export function shimText(token: string): string {
  return `exports.handler = () => require(${JSON.stringify(`${PACKAGE_NAME}/host`)}).provider(${JSON.stringify(shortTypeOf(token))});\n`;
}
