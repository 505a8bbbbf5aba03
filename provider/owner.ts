/**
 * Which stack's resource made (or took over) an object: ARCHITECTURE.md, "One owner". A program's resource
 * carries its owner as a hidden input (`OWNER_KEY`: the dynamic class sets it from the program's
 * project and stack, the plugin from the resource's URN); a spec whose service object has room for
 * it (`ResourceSpec.ownerRecord`) writes it there, and reads it back with the object. A recorded
 * owner lets a create take back what its own stack left behind (a killed run) and refuses an
 * adoption of what another stack made, unless the program says it takes it over.
 */

/** The hidden input (and output) holding a resource's owner. */
export const OWNER_KEY = "__owner";
/** The input by which an adoption takes over an object another stack recorded as its own. */
export const TAKE_OVER_KEY = "takeOver";

export interface Owner {
  project: string;
  stack: string;
  /** The resource's name in its program. */
  resource: string;
}

/** `Pulumi stack app/prod, resource shared`: how the service shows an owner, and how messages name it. */
export function ownerLabel(owner: Owner): string {
  return `Pulumi stack ${owner.project}/${owner.stack}, resource ${owner.resource}`;
}

const LABEL = /^Pulumi stack ([^/\s]+)\/(\S+), resource (.+)$/;

/** The owner a label names; undefined for any other text. */
export function parseOwnerLabel(text: unknown): Owner | undefined {
  if (typeof text !== "string") return undefined;
  const m = LABEL.exec(text);
  return m ? { project: m[1], stack: m[2], resource: m[3] } : undefined;
}

/** The owner of a resource's hidden input; undefined when absent or malformed (an older release's state). */
export function ownerOf(value: unknown): Owner | undefined {
  if (!value || typeof value !== "object") return undefined;
  const { project, stack, resource } = value as Record<string, unknown>;
  return typeof project === "string" && typeof stack === "string" && typeof resource === "string" && project && stack && resource ? { project, stack, resource } : undefined;
}

/** The owner a resource's URN names: `urn:pulumi:<stack>::<project>::<type>::<name>`. */
export function ownerOfUrn(urn: string): Owner | undefined {
  const parts = urn.split("::");
  if (parts.length < 4 || !parts[0].startsWith("urn:pulumi:")) return undefined;
  return { project: parts[1], stack: parts[0].slice("urn:pulumi:".length), resource: parts.slice(3).join("::") };
}

export const sameStack = (a: Owner, b: Owner): boolean => a.project === b.project && a.stack === b.stack;
export const sameResource = (a: Owner, b: Owner): boolean => sameStack(a, b) && a.resource === b.resource;

/**
 * A free-text field (a partition's description) with the owner noted on its last line, and the
 * field as the program declared it again: the note is the package's, never part of the input.
 */
const NOTE = /(?:\n\n|^)\(managed by (Pulumi stack [^\n]*)\)$/;

export function withOwnerNote(text: string, owner: Owner | undefined): string {
  if (!owner) return text;
  const note = `(managed by ${ownerLabel(owner)})`;
  return text ? `${text}\n\n${note}` : note;
}

export function withoutOwnerNote(text: string): { text: string; owner?: Owner } {
  const m = NOTE.exec(text);
  const owner = m ? parseOwnerLabel(m[1]) : undefined;
  return owner ? { text: text.slice(0, m!.index), owner } : { text };
}
