/**
 * Service intentions of the mesh emulator and the layer-4 authorisation decision made from them.
 * An intention that carries Permissions is layer-7 and counts as deny here (spec rule 1).
 */
import { randomUUID } from "node:crypto";

export interface IntentionInput {
  source: string;
  destination: string;
  action: "allow" | "deny";
  permissions?: unknown[];
  /** Namespace of both the source and the destination (default `default`). */
  namespace?: string;
}

export interface Intention extends Required<Omit<IntentionInput, "permissions">> {
  id: string;
  permissions?: unknown[];
  /** Higher wins: exact names beat `*`, the destination weighing more than the source. */
  precedence: number;
}

export interface AuthorizeDecision {
  Authorized: boolean;
  Reason: string;
}

const WILDCARD = "*";

function precedenceOf(source: string, destination: string): number {
  // Same ordering as the real service: exact→exact 9, *→exact 8, exact→* 6, *→* 5.
  if (destination !== WILDCARD) return source !== WILDCARD ? 9 : 8;
  return source !== WILDCARD ? 6 : 5;
}

export class IntentionStore {
  private intentions: Intention[] = [];
  private defaultAllow = false;

  add(input: IntentionInput): Intention {
    const intention: Intention = {
      id: randomUUID(),
      source: input.source,
      destination: input.destination,
      action: input.action,
      namespace: input.namespace ?? "default",
      permissions: input.permissions,
      precedence: precedenceOf(input.source, input.destination),
    };
    this.intentions = this.intentions.filter(
      (i) => !(i.source === intention.source && i.destination === intention.destination && i.namespace === intention.namespace),
    );
    this.intentions.push(intention);
    return { ...intention };
  }

  clear(): void {
    this.intentions = [];
  }

  setDefaultAllow(allow: boolean): void {
    this.defaultAllow = allow;
  }

  authorize(source: { service: string; namespace: string }, target: { service: string; namespace: string }): AuthorizeDecision {
    const match = this.intentions
      .filter(
        (i) =>
          i.namespace === target.namespace &&
          i.namespace === source.namespace &&
          (i.destination === target.service || i.destination === WILDCARD) &&
          (i.source === source.service || i.source === WILDCARD),
      )
      .sort((a, b) => b.precedence - a.precedence)[0];
    if (!match) return { Authorized: this.defaultAllow, Reason: "Default behavior configured by ACLs" };
    const route = `${match.source} => ${match.destination}`;
    if (match.permissions && match.permissions.length > 0) {
      return { Authorized: false, Reason: `Matched L7 intention: ${route} (has permissions, denied at L4)` };
    }
    return { Authorized: match.action === "allow", Reason: `Matched L4 intention: ${route} (${match.action})` };
  }
}
