/**
 * The cluster-wide modify index of the mesh emulator: every write (partition changes, root rotation,
 * certificate issuance) takes the next value, so CreateIndex/ModifyIndex and blocking-query indexes
 * come from one monotonic sequence as they do in a raft log.
 */
export class RaftIndex {
  private value = 0;

  current(): number {
    return this.value;
  }

  next(): number {
    this.value += 1;
    return this.value;
  }
}
