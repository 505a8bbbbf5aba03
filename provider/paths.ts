/**
 * Paths of every service, from templates: `sys/policies/acl/{name}`, `{mount*}/roles/{name}`,
 * `/organizations/{organization}/workspaces`. Each value goes into the URL percent-encoded, so no
 * path is assembled by hand.
 */

type Segment = { literal: string } | { param: string; multi: boolean };

export interface PathTemplate {
  text: string;
  params: string[];
  /** The path with each segment percent-encoded (a route), or as given (`raw`: a natural ID). */
  render(values: Record<string, unknown>, raw?: boolean): string;
  parse(path: string): Record<string, string> | undefined;
}

/** A path of several segments (a key-value path, a mount) as it goes into a URL: each segment encoded once. */
export const encodePath = (path: string): string => path.split("/").map(encodeURIComponent).join("/");

/** `{x}` is one path segment, `{x*}` one or more; each names an input. */
export function pathTemplate(text: string): PathTemplate {
  const segments: Segment[] = text.split("/").map((part) => {
    const m = /^\{(\w+)(\*?)\}$/.exec(part);
    return m ? { param: m[1], multi: m[2] === "*" } : { literal: part };
  });
  const params = segments.flatMap((s) => ("param" in s ? [s.param] : []));
  const lastParam = [...segments].reverse().find((s) => "param" in s);
  const pattern = new RegExp(
    `^${segments
      .map((s) => ("literal" in s ? s.literal.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : s.multi ? (s === lastParam ? "(.+)" : "(.+?)") : "([^/]+)"))
      .join("/")}$`,
  );
  return {
    text,
    params,
    render(values, raw = false) {
      return segments
        .map((s) => {
          if ("literal" in s) return s.literal;
          const given = values[s.param];
          if (raw) return String(given ?? "");
          // A route never gets an empty segment: it would name another endpoint.
          if (given === undefined || given === null || given === "") throw new Error(`${text}: no value for {${s.param}}`);
          const value = String(given);
          return s.multi ? encodePath(value) : encodeURIComponent(value);
        })
        .join("/");
    },
    parse(path) {
      const m = pattern.exec(path);
      if (!m) return undefined;
      return Object.fromEntries(params.map((p, i) => [p, m[i + 1]]));
    },
  };
}

const compiled = new Map<string, PathTemplate>();

/** A route: the template's path with each value percent-encoded (`{x}` one segment, `{x*}` several). */
export function route(template: string, values: object): string {
  let t = compiled.get(template);
  if (!t) compiled.set(template, (t = pathTemplate(template)));
  return t.render(values as Record<string, unknown>);
}
