/**
 * The plugin's entry as a caller sees it, in plain types (no schema library, no protocol), so the
 * public entry's declarations stay plain.
 */

/** The plugin serving: its port, and how to stop it. */
export interface RunningPlugin {
  port: number;
  /** Stops serving (what the engine's close of the plugin does). */
  close(): Promise<void>;
}

/** Where the plugin writes its port (standard output) and what it says to a person (standard error). */
export interface PluginIo {
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
}
