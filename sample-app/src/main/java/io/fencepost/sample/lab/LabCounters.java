package io.fencepost.sample.lab;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What happened in the lab since the last reset: counted by the workers, shown on the page.
 *
 * <p>A count goes up after its event is in the {@link LabLog}, and the page's state reads the counts before the
 * events: a page that shows a count also shows the event behind it.
 */
final class LabCounters {

    final AtomicLong grants = new AtomicLong();

    final AtomicLong writesAccepted = new AtomicLong();

    final AtomicLong writesRejected = new AtomicLong();

    final AtomicLong violations = new AtomicLong();

    final AtomicLong storeErrors = new AtomicLong();

    final AtomicLong leasesLost = new AtomicLong();

    /** Grants to attempts that began while the store was cut off: an outage must leave this at zero. */
    final AtomicLong grantsWhileStoreDown = new AtomicLong();

    LabState.Counters view() {
        return new LabState.Counters(
                grants.get(),
                writesAccepted.get(),
                writesRejected.get(),
                violations.get(),
                storeErrors.get(),
                leasesLost.get());
    }

    void reset() {
        grants.set(0);
        writesAccepted.set(0);
        writesRejected.set(0);
        violations.set(0);
        storeErrors.set(0);
        leasesLost.set(0);
        grantsWhileStoreDown.set(0);
    }
}
