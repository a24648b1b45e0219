package io.fencepost.sample.lab;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockOptions;
import java.util.Optional;

/**
 * Step 4, only the owner unlocks: a holder works past its lease (renewal off), another client takes the key over, and
 * then the late holder calls release. The store's release deletes only a row whose owner token is still the caller's:
 * it removes nothing, and the new holder keeps the key.
 */
final class StaleReleaseStep implements LabStep {

    static final String ID = "stale-release";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public void run(StepContext context) {
        String key = context.key(ID);
        StepContext.Client stale = context.client("stale");
        StepContext.Client newer = context.client("newer");
        LockOptions noRenewal = LockOptions.builder()
                .leaseTime(context.leaseTime())
                .renew(false)
                .name("lab")
                .build();
        Lease old = stale.locks()
                .tryAcquire(key, noRenewal)
                .orElseThrow(() -> new IllegalStateException("'" + key + "' was busy before the step began"));
        context.event(
                ID,
                "stale is granted token " + old.fencingToken() + " without renewal and works past its "
                        + context.leaseTime().toMillis() + " ms lease; newer waits for the key");
        Optional<Lease> taken = newer.locks()
                .tryAcquire(key, context.options(context.leaseTime().multipliedBy(4)));
        if (taken.isEmpty()) {
            context.result(ID, false, "newer was NOT granted the key after stale's lease expired");
            old.release();
            return;
        }
        try {
            long newToken = taken.get().fencingToken();
            context.event(ID, "newer takes the key over with token " + newToken + "; now stale finishes and releases");
            boolean removed = old.release();
            Optional<LeaseInfo> after = context.inspect(key);
            boolean kept = after.isPresent()
                    && after.get().fencingToken() == newToken
                    && after.get().holder().equals(context.holderName(newer.name()));
            context.result(
                    ID,
                    !removed && kept,
                    "stale's late release (token " + old.fencingToken() + ") answered " + removed + ": "
                            + (removed ? "the store REMOVED a lease" : "the store removed nothing")
                            + (kept
                                    ? ", and still names " + after.get().holder() + " with token " + newToken
                                            + " (its owner token is not stale's, so the release's delete matched no row)"
                                    : ", and the key is NO LONGER newer's: "
                                            + after.map(info -> info.holder() + " holds token " + info.fencingToken())
                                                    .orElse("nobody holds it")));
        } finally {
            taken.get().release();
        }
    }
}
