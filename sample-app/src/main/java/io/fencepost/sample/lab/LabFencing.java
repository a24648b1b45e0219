package io.fencepost.sample.lab;

import java.util.Locale;

/** How the lab's resource is protected from a holder whose lease ran out. */
enum LabFencing {

    /** The resource row refuses tokens lower than the highest it has seen (a fence column). */
    COLUMN("fencing ON: the resource refuses tokens lower than the highest it has seen"),

    /**
     * Each worker reads and writes in one transaction that commits only while its lease is held (JdbcLeaseGuard);
     * the resource itself checks nothing.
     */
    TRANSACTION("fence the transaction: each worker's read and write commit only while its lease is held"
            + " (JdbcLeaseGuard); a late holder's whole transaction rolls back"),

    /** Nothing: only the lock stands between workers. */
    OFF("fencing OFF: the resource accepts every write; only the lock stands between workers");

    private final String description;

    LabFencing(String description) {
        this.description = description;
    }

    String description() {
        return description;
    }

    /** As the page names it: column, transaction or off. */
    String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @throws IllegalArgumentException for a name that is none of column, transaction and off
     */
    static LabFencing parse(String id) {
        for (LabFencing mode : values()) {
            if (mode.id().equals(id)) {
                return mode;
            }
        }
        throw new IllegalArgumentException("fencing mode must be column, transaction or off, was '" + id + "'");
    }
}
