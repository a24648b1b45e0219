/**
 * The Fencepost sample application: a small payments ledger whose transfers lock their accounts and whose
 * settlement job runs once per tick across instances, plus the lab page that runs the paused-holder and dead-store
 * experiments live.
 */
package io.fencepost.sample;
