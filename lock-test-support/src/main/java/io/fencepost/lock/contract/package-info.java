/**
 * The contract every {@link io.fencepost.lock.spi.LeaseStore} must meet, as JUnit 5 suites: extend
 * {@link io.fencepost.lock.contract.LeaseStoreContract}, and implement the suite of each ability the store has.
 */
package io.fencepost.lock.contract;
