package io.fencepost.sample.lab;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Step 3, a holder that dies: the holder's process stops dead (its client never reaches the store again, so it neither
 * renews nor releases), and a client waiting for the key is granted it once the dead lease has expired by the store's
 * clock, not before. The gap is measured on the store's clock: from the dead lease's end to the next grant.
 */
final class DeadHolderStep implements LabStep {

    static final String ID = "dead-holder";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public void run(StepContext context) {
        String key = context.key(ID);
        StepContext.Client holder = context.client("holder");
        StepContext.Client next = context.client("next");
        Lease dead = holder.locks()
                .tryAcquire(key, context.options(Duration.ZERO))
                .orElseThrow(() -> new IllegalStateException("'" + key + "' was busy before the step began"));
        holder.link().cut();
        Instant killedAt = context.storeNow();
        // Read after the kill: no renewal of the dead holder can move the lease's end any more.
        LeaseInfo lastLease = context.inspect(key)
                .orElseThrow(() -> new IllegalStateException("the dead holder's lease vanished at once"));
        context.event(
                ID,
                "holder, granted token " + dead.fencingToken() + ", stops dead: it will never renew or release. Its"
                        + " lease ends " + millis(Duration.between(killedAt, lastLease.expiresAt()))
                        + " ms from now by the store's clock; next asks for the key and waits");
        Optional<Lease> taken =
                next.locks().tryAcquire(key, context.options(context.leaseTime().multipliedBy(4)));
        if (taken.isEmpty()) {
            context.result(ID, false, "next was NOT granted the key within its wait after the holder died");
            return;
        }
        try {
            LeaseInfo granted = context.inspect(key)
                    .filter(info -> info.fencingToken() == taken.get().fencingToken())
                    .orElseThrow(() -> new IllegalStateException("the store does not show next's grant"));
            Duration afterExpiry = Duration.between(lastLease.expiresAt(), granted.acquiredAt());
            Duration afterKill = Duration.between(killedAt, granted.acquiredAt());
            boolean asPromised = !afterExpiry.isNegative();
            context.result(
                    ID,
                    asPromised,
                    "The holder (token " + dead.fencingToken() + ") died without releasing; next was granted token "
                            + granted.fencingToken() + ", " + millis(afterKill) + " ms after the death and "
                            + (asPromised
                                    ? millis(afterExpiry) + " ms after the dead lease expired by the store's clock"
                                    : "BEFORE the dead lease expired (" + millis(afterExpiry.negated()) + " ms early)")
                            + ". The lease time is " + context.leaseTime().toMillis()
                            + " ms: that is how long a dead holder can keep the key from the others.");
        } finally {
            taken.get().release();
        }
    }

    private static long millis(Duration duration) {
        return duration.toMillis();
    }
}
