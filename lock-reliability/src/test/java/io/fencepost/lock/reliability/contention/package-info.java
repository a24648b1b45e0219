/**
 * Contention as production has it: several instances of an application, each with its own lock manager and pool,
 * several threads each, all on one hot key; and processes taking overlapping sets of keys together.
 */
package io.fencepost.lock.reliability.contention;
