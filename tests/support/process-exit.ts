/** Waiting for a process this test started to be gone (a detached emulator, a plugin), by polling its PID. */

/** Whether the process is gone within `seconds`, polling every tenth of a second: a hang guard, not a race. */
export async function processGone(pid: number, seconds = 10): Promise<boolean> {
  for (let i = 0; i < seconds * 10; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}
