/**
 * Not API: helpers that Fencepost's own modules share (bounded hints, rate-limited outage logging, readable
 * durations). Any release may change or remove them; application code and stores of other projects should not
 * depend on them.
 */
package io.fencepost.lock.internal;
