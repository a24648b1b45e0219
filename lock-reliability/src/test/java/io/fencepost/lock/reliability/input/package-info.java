/** Hostile and broken input, and secrets that must never reach a log line or an exception. */
package io.fencepost.lock.reliability.input;
