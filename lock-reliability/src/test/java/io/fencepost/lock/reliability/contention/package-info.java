/**
 * Contention as production has it: several instances of an application, each with its own lock manager and pool,
 * several threads each, all on one hot key.
 */
package io.fencepost.lock.reliability.contention;
