/**
 * Compile-time assertions for the `*.types.ts` files: they hold only types, and the compiler (run by
 * types.test.ts) is what checks them.
 */

/** True when A and B are the same type (not merely assignable either way). */
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** Compiles only when given `true`. */
export type Expect<T extends true> = T;
