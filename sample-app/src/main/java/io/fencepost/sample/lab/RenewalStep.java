package io.fencepost.sample.lab;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Step 7, renew honestly: a job three leases long keeps its key, renewal moving its lease's end while it works (as the
 * store shows it); then a job that stalls is renewed only up to its max hold time, after which its lease expires by
 * the store's clock, the job is told that it lost the key, and another client takes it.
 */
final class RenewalStep implements LabStep {

    static final String ID = "renewal";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public void run(StepContext context) throws InterruptedException {
        String key = context.key(ID);
        Duration lease = context.leaseTime();
        StepContext.Client job = context.client("job");
        StepContext.Client other = context.client("other");

        Lease working = job.locks()
                .tryAcquire(key, context.options(Duration.ZERO))
                .orElseThrow(() -> new IllegalStateException("'" + key + "' was busy before the step began"));
        context.event(
                ID,
                "job is granted token " + working.fencingToken() + " with a " + lease.toMillis()
                        + " ms lease and works for " + lease.multipliedBy(3).toMillis() + " ms");
        List<Instant> ends = new ArrayList<>();
        boolean keptIt = true;
        long end = System.nanoTime() + lease.multipliedBy(3).toNanos();
        try {
            while (System.nanoTime() < end) {
                Optional<LeaseInfo> store = context.inspect(key);
                keptIt &= store.isPresent() && store.get().fencingToken() == working.fencingToken();
                store.map(LeaseInfo::expiresAt)
                        .filter(at ->
                                ends.isEmpty() || !ends.get(ends.size() - 1).equals(at))
                        .ifPresent(ends::add);
                TimeUnit.NANOSECONDS.sleep(lease.toNanos() / 5);
            }
        } finally {
            working.release();
        }
        int moved = ends.size() - 1;
        String longJob = "A job " + lease.multipliedBy(3).toMillis() + " ms long on a " + lease.toMillis()
                + " ms lease kept token " + working.fencingToken() + (keptIt ? " throughout" : " NOT throughout")
                + ": renewal moved its lease's end " + moved + " time(s) (the store's expires_at, "
                + ends.stream().map(at -> at.toString().substring(11, 23)).toList() + ")";
        context.event(ID, longJob);

        Duration maxHold = lease.multipliedBy(2);
        LockOptions bounded = LockOptions.builder()
                .leaseTime(lease)
                .maxHoldTime(maxHold)
                .name("lab")
                .build();
        Lease stalled = job.locks()
                .tryAcquire(key, bounded)
                .orElseThrow(() -> new IllegalStateException("'" + key + "' was busy after the long job"));
        Instant stalledAt = context.inspect(key)
                .map(LeaseInfo::acquiredAt)
                .orElseThrow(() -> new IllegalStateException("the store does not show the stalled job's grant"));
        CountDownLatch lost = new CountDownLatch(1);
        AtomicReference<String> why = new AtomicReference<>("");
        stalled.onLost(e -> {
            why.set(e.getMessage());
            lost.countDown();
        });
        context.event(
                ID,
                "job is granted token " + stalled.fencingToken() + " and stalls: no progress, no release; its"
                        + " renewal is bounded by a max hold time of " + maxHold.toMillis() + " ms; other waits");
        Optional<Lease> taken = other.locks().tryAcquire(key, context.options(lease.multipliedBy(5)));
        try {
            boolean told = lost.await(lease.toMillis() * 2, TimeUnit.MILLISECONDS);
            Optional<LeaseInfo> store = context.inspect(key);
            boolean handed = taken.isPresent()
                    && store.isPresent()
                    && store.get().fencingToken() == taken.get().fencingToken();
            String stall = "The stalled job (token " + stalled.fencingToken() + ") was renewed up to its max hold time"
                    + " of " + maxHold.toMillis() + " ms and no further: "
                    + (handed
                            ? "other was granted token " + taken.get().fencingToken() + " "
                                    + Duration.between(stalledAt, store.get().acquiredAt())
                                            .toMillis()
                                    + " ms after the stalled job's grant, by the store's clock"
                            : "other was NOT granted the key")
                    + (told ? "; the job was told it lost the key (" + why.get() + ")" : "; the job was NOT told");
            context.result(ID, keptIt && moved >= 2 && handed && told, longJob + ". " + stall + ".");
        } finally {
            taken.ifPresent(Lease::release);
            stalled.release();
        }
    }
}
