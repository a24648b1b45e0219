/**
 * The lab: workers with lock clients of their own contend for one key and increment a counter under it, while
 * the page pauses the holder past its lease, cuts the lock store, or turns fencing off, and counts the lost
 * updates that follow.
 */
package io.fencepost.sample.lab;
