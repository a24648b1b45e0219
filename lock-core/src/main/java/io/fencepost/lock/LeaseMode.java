package io.fencepost.lock;

/** How many leases of a key may be held at once, and with which others. */
public enum LeaseMode {

    /** One lease of the key at a time, and no other lease with it. */
    EXCLUSIVE,

    /** Any number of shared leases at once; never together with an exclusive lease of the key. */
    SHARED,

    /** Up to a fixed number of leases at once (a counted semaphore); never together with other kinds of lease. */
    PERMITS
}
