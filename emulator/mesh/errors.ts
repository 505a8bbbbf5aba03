/**
 * Error type of the mesh emulator. The real service answers every error as a plain-text body with the
 * status code carrying the meaning, so a handler throws one of these and the server's error handler
 * writes the message as text/plain.
 */
export class MeshHttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = "MeshHttpError";
  }
}

export const badRequest = (message: string) => new MeshHttpError(400, message);
export const forbidden = (message: string) => new MeshHttpError(403, message);
export const notFound = (message: string) => new MeshHttpError(404, message);
/**
 * Refusals decided on the servers rather than in the HTTP layer. The real HTTP layer maps only typed
 * errors (permission, bad request) to 4xx; an error coming back from a server RPC becomes a 500 with
 * the server's message as text.
 */
export const serverRefusal = (message: string) => new MeshHttpError(500, message);
