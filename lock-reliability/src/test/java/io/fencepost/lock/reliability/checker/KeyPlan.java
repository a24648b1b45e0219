package io.fencepost.lock.reliability.checker;

import java.util.ArrayList;
import java.util.List;

/**
 * What the workload asks of one key: exclusive leases only, shared leases mixed with exclusive ones, or a fixed
 * number of permits. The plan is fixed per key for the whole run, so that every caller of a permit key agrees on n,
 * and the analyzer knows what each key allows.
 *
 * @param key the lock key
 * @param kind what its callers ask for
 * @param permits the permits of a permit key (1 for the others)
 */
record KeyPlan(String key, Kind kind, int permits) {

    /** The kinds of key. */
    enum Kind {
        /** Exclusive leases only: at most one live lease. */
        EXCLUSIVE,
        /** Shared and exclusive leases: shared ones may overlap each other, an exclusive one overlaps nothing. */
        MIXED,
        /** {@code permits} leases at most. */
        PERMITS
    }

    /**
     * The keys of a run: {@code exclusive} exclusive keys first (the first of them the hot one when shared
     * managers crowd it), then {@code mixed} keys of shared and exclusive leases, then {@code permitKeys} permit keys
     * with {@code permits}, {@code permits + 1}, ... permits.
     */
    static List<KeyPlan> of(int exclusive, int mixed, int permitKeys, int permits) {
        List<KeyPlan> plans = new ArrayList<>();
        for (int k = 0; k < exclusive; k++) {
            plans.add(new KeyPlan(CheckerSchema.key(k), Kind.EXCLUSIVE, 1));
        }
        for (int k = 0; k < mixed; k++) {
            plans.add(new KeyPlan("checker:mixed-" + k, Kind.MIXED, 1));
        }
        for (int k = 0; k < permitKeys; k++) {
            plans.add(new KeyPlan("checker:permits-" + k, Kind.PERMITS, permits + k));
        }
        return plans;
    }

    /** The keys of {@code plans} that are not exclusive-only: the mode threads' keys. */
    static List<KeyPlan> modeKeys(List<KeyPlan> plans) {
        return plans.stream().filter(p -> p.kind != Kind.EXCLUSIVE).toList();
    }
}
