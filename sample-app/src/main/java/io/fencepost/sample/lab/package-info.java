/**
 * The lab: workers with lock clients of their own contend for one key and increment a counter under it, while
 * the page pauses the holder past its lease, cuts the lock store, or turns fencing off, and counts the lost
 * updates that follow; and the design walk-through's other steps, each run once on a key of its own (a race, a
 * holder that dies, a stale release, renewal, a failover of a replicated store).
 */
package io.fencepost.sample.lab;
